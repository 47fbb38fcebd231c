package wrapgen

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestParseHeader(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		wantName  string
		wantTypes []string
		commArgs  []int
		variadic  bool
	}{
		{"plain", "int MPI_Comm_size(MPI_Comm comm, int *size) MPICH_API_PUBLIC;",
			"MPI_Comm_size", []string{"MPI_Comm", "int *"}, []int{0}, false},
		{"multi-line with attributes",
			"int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,\n  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)\n  MPICH_ATTR_POINTER_WITH_TYPE_TAG(1,3) MPICH_ATTR_POINTER_WITH_TYPE_TAG(4,6) MPICH_API_PUBLIC;",
			"MPI_Allgather", []string{"const void *", "int", "MPI_Datatype", "void *", "int", "MPI_Datatype", "MPI_Comm"}, []int{6}, false},
		{"two comms", "int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newintercomm);",
			"MPI_Intercomm_create", []string{"MPI_Comm", "int", "MPI_Comm", "int", "int", "MPI_Comm *"}, []int{0, 2}, false},
		{"comm pointer is not a comm argument", "int MPI_Comm_free(MPI_Comm *comm);",
			"MPI_Comm_free", []string{"MPI_Comm *"}, nil, false},
		{"2-D array", "int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);",
			"MPI_Group_range_excl", []string{"MPI_Group", "int", "int [][3]", "MPI_Group *"}, nil, false},
		{"array of comms is not by value", "int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm);",
			"MPI_Cart_sub", []string{"MPI_Comm", "const int []", "MPI_Comm *"}, []int{0}, false},
		{"void", "double MPI_Wtime(void);", "MPI_Wtime", nil, nil, false},
		{"variadic", "int MPI_Pcontrol(const int level, ...);", "MPI_Pcontrol", []string{"const int"}, nil, true},
		{"unnamed parameters", "int PMPI_File_open(MPI_Comm, const char *, int, MPI_Info, MPI_File *);",
			"PMPI_File_open", []string{"MPI_Comm", "const char *", "int", "MPI_Info", "MPI_File *"}, []int{0}, false},
		{"Open MPI's attributes", "OMPI_DECLSPEC  int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)\n  __mpi_interface_deprecated__(\"MPI_Attr_get was deprecated in MPI-2.0; use MPI_Comm_get_attr instead\");",
			"MPI_Attr_get", []string{"MPI_Comm", "int", "void *", "int *"}, []int{0}, false},
		{"comments and preprocessor", "/* int MPI_Fake(MPI_Comm c); */\n#define X 1\nint MPIX_Comm_revoke(MPI_Comm comm); // trailing",
			"MPIX_Comm_revoke", []string{"MPI_Comm"}, []int{0}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			protos, err := ParseHeader(tt.src)
			if err != nil {
				t.Fatal(err)
			}
			if len(protos) != 1 {
				t.Fatalf("got %d prototypes: %+v", len(protos), protos)
			}
			p := protos[0]
			if p.Name != tt.wantName || p.Variadic != tt.variadic {
				t.Errorf("name %q variadic %v", p.Name, p.Variadic)
			}
			var types []string
			for _, prm := range p.Params {
				types = append(types, prm.Type)
			}
			if strings.Join(types, "|") != strings.Join(tt.wantTypes, "|") {
				t.Errorf("types %q, want %q", types, tt.wantTypes)
			}
			if got := p.CommParams(); len(got) != len(tt.commArgs) || (len(got) > 0 && strings.Trim(strings.Join(strings.Fields(strings.Trim(fmtInts(got), "[]")), ","), ",") != strings.Trim(strings.Join(strings.Fields(strings.Trim(fmtInts(tt.commArgs), "[]")), ","), ",")) {
				t.Errorf("comm params %v, want %v", got, tt.commArgs)
			}
		})
	}
}

// A block whose condition an ABI omits goes, with the blocks nested in it;
// the rest stays.
func TestOmitBlocks(t *testing.T) {
	src := "int MPI_A(MPI_Comm c);\n#if (X || Y)\n#if Z\nint MPI_B(MPI_Comm c);\n#endif\nint MPI_C(MPI_Comm c);\n#endif\n#if W\nint MPI_D(MPI_Comm c);\n#endif\n"
	protos, err := ParseHeader(omitBlocks(src, []string{"(X || Y)"}))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range protos {
		names = append(names, p.Name)
	}
	if strings.Join(names, ",") != "MPI_A,MPI_D" {
		t.Errorf("kept %v, want MPI_A and MPI_D", names)
	}
}

func fmtInts(v []int) string {
	var b strings.Builder
	for i, x := range v {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(string(rune('0' + x)))
	}
	return b.String()
}

func TestWrappableNeedsPMPITwin(t *testing.T) {
	protos, err := ParseHeader(`
int MPI_B(MPI_Comm c); int PMPI_B(MPI_Comm c);
int MPI_A(MPI_Comm c); int PMPI_A(MPI_Comm c);
int MPI_NoTwin(MPI_Comm c);
int MPI_NoComm(int x); int PMPI_NoComm(int x);`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range Wrappable(protos) {
		names = append(names, p.Name)
	}
	if strings.Join(names, ",") != "MPI_A,MPI_B" {
		t.Fatalf("Wrappable = %v", names)
	}
}

func TestGenerateWrapper(t *testing.T) {
	protos, _ := ParseHeader("int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newintercomm);\nint PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newintercomm);")
	files, err := generateWithInterposed(protos)
	if err != nil {
		t.Fatal(err)
	}
	src := string(files[MPICH.WrappersFile])
	for _, want := range []string{
		"int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newintercomm)\n{",
		"return GHOST_REAL(MPI_Intercomm_create)(GHOST_USER_COMM(local_comm), local_leader, GHOST_USER_COMM(peer_comm), remote_leader, tag, newintercomm);",
		"ghost_prof_enter();",
		"ghost_prof_exit(t0);",
		`int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newintercomm) __attribute__((alias("PMPI_Intercomm_create")));`,
		`dlsym(RTLD_NEXT, "PMPI_Intercomm_create")`,
	} {
		if !strings.Contains(src, want) {
			t.Errorf("generated source lacks %q", want)
		}
	}
	if !strings.HasPrefix(src, "//go:build !openmpi\n\n") {
		t.Errorf("generated source does not start with its build constraint:\n%.80s", src)
	}
	if !strings.Contains(string(files[MPICH.RealFile]), "extern __typeof__(PMPI_Intercomm_create) *ghost_real_PMPI_Intercomm_create;") {
		t.Errorf("zreal.h lacks the pointer:\n%s", files[MPICH.RealFile])
	}
}

func TestGenerateRejectsUnforwardable(t *testing.T) {
	for _, src := range []string{
		"int MPI_V(MPI_Comm c, ...); int PMPI_V(MPI_Comm c, ...);",
		"double MPI_D(MPI_Comm c); double PMPI_D(MPI_Comm c);",
	} {
		protos, _ := ParseHeader(src)
		if _, err := generateWithInterposed(protos); err == nil {
			t.Errorf("Generate(%q) succeeded", src)
		}
	}
}

// generateWithInterposed adds declarations of the hand-written and
// interposed functions, which Generate requires to exist, to a test header.
func generateWithInterposed(protos []Proto) (map[string][]byte, error) {
	var extra string
	names := append([]string{}, Interposed...)
	for n := range Handwritten {
		names = append(names, n)
	}
	for _, n := range names {
		extra += "int P" + n + "(int x);\n"
	}
	more, err := ParseHeader(extra)
	if err != nil {
		return nil, err
	}
	return Generate(MPICH, append(protos, more...))
}

// installed parses the ABI's headers on this machine, or skips when there
// are none (the pure tests above still run).
func installed(t *testing.T, abi ABI) []Proto {
	t.Helper()
	protos, err := abi.LoadInstalled()
	if err != nil {
		t.Skipf("no installed %s headers: %v", abi.Name, err)
	}
	return protos
}

// Each ABI's committed generated files must equal what the generator writes
// from its installed headers into a temporary directory: run `make
// generate` after changing the generator.
func TestWrappersUpToDate(t *testing.T) {
	for _, abi := range ABIs {
		t.Run(abi.WrappersFile, func(t *testing.T) {
			protos := installed(t, abi)
			files, err := Generate(abi, protos)
			if err != nil {
				t.Fatal(err)
			}
			tmp := t.TempDir()
			for name, want := range files {
				if err := os.WriteFile(filepath.Join(tmp, name), want, 0o644); err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(filepath.Join("..", "..", name))
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != string(want) {
					t.Errorf("c/%s is stale against %s's headers (diff it with %s): run `make generate` and commit the result",
						name, abi.Name, filepath.Join(tmp, name))
				}
			}
		})
	}
}

// Every MPI_/MPIX_ function of each ABI's installed headers that takes a
// communicator by value has a wrapper, generated or hand-written. The count
// comes from a scan of the header text that is independent of the parser
// (only the blocks the installed library leaves out are dropped first).
func TestEveryCommFunctionIsWrapped(t *testing.T) {
	for _, abi := range ABIs {
		t.Run(abi.WrappersFile, func(t *testing.T) { everyCommFunctionIsWrapped(t, abi) })
	}
}

func everyCommFunctionIsWrapped(t *testing.T, abi ABI) {
	installed(t, abi)
	dir, err := abi.IncludeDir()
	if err != nil {
		t.Fatal(err)
	}
	byValueComm := regexp.MustCompile(`\bMPI_Comm\s+[a-z_]+\s*[,)]`)
	declared := map[string]bool{}
	commTaking := map[string]bool{}
	for _, h := range abi.Headers {
		text, err := os.ReadFile(filepath.Join(dir, h))
		if err != nil {
			t.Fatal(err)
		}
		// Attributes go first: Open MPI's deprecation notes hold semicolons.
		flat := strings.Join(strings.Fields(attrMacro.ReplaceAllString(stripComments(omitBlocks(string(text), abi.OmitBlocks)), " ")), " ")
		for _, stmt := range strings.Split(flat, ";") {
			m := regexp.MustCompile(`\b(P?MPIX?_[A-Za-z0-9_]+)\s*\(`).FindStringSubmatch(stmt)
			if m == nil || strings.Contains(stmt, "typedef") {
				continue
			}
			declared[m[1]] = true
			if !strings.HasPrefix(m[1], "P") && !strings.HasSuffix(m[1], "_c2f") && byValueComm.MatchString(stmt) {
				commTaking[m[1]] = true
			}
		}
	}
	// Callbacks such as MPI_DUP_FN take a communicator but have no PMPI twin
	// and are not MPI calls.
	for name := range commTaking {
		if !declared["P"+name] {
			delete(commTaking, name)
		}
	}
	gen, err := os.ReadFile(filepath.Join("..", "..", abi.WrappersFile))
	if err != nil {
		t.Fatal(err)
	}
	handSrc := ""
	cFiles, _ := filepath.Glob(filepath.Join("..", "..", "*.c"))
	for _, f := range cFiles {
		if !strings.HasPrefix(filepath.Base(f), "zwrappers") {
			b, _ := os.ReadFile(f)
			handSrc += string(b)
		}
	}
	missing := 0
	for name := range commTaking {
		// Both entry points are defined: PMPI_name and its MPI_name alias,
		// written out or by c/win.h's GHOST_DEFINE, which defines both.
		def := regexp.MustCompile(`(?m)(^int P` + name + `\((.|\n)*^int ` + name + `\()|(^GHOST_DEFINE\(` + name + `,)`)
		_, hand := Handwritten[name]
		switch {
		case hand && def.MatchString(handSrc):
		case !hand && def.MatchString(string(gen)):
		default:
			t.Errorf("%s takes a communicator but has no wrapper (hand-written: %v)", name, hand)
			missing++
		}
	}
	for name := range Handwritten {
		// Open MPI 4.1 lacks the MPI-4 functions and the removed MPI-1 ones.
		if !commTaking[name] && declared[name] {
			t.Errorf("hand-written %s does not take a communicator in the installed headers", name)
		}
	}
	t.Logf("%d comm-taking functions in the installed headers, %d hand-written, %d missing",
		len(commTaking), len(Handwritten), missing)
	if len(commTaking) < 100 {
		t.Errorf("only %d comm-taking functions found: is the header scan broken?", len(commTaking))
	}
}

func TestLocal(t *testing.T) {
	for _, tc := range []struct {
		name  string
		local bool
	}{
		{"MPI_Type_size", true},
		{"MPI_Type_create_subarray", true},
		{"MPI_Type_commit", true},
		{"MPI_Group_translate_ranks", true},
		{"MPI_Info_set", true},
		{"MPI_Comm_rank", true},
		{"MPI_Comm_size", true},
		{"MPI_Win_get_group", true},
		{"MPI_Pack_size", true},
		{"MPI_Get_count_c", true},
		{"MPI_Get_address", true},
		{"MPI_Cart_coords", true},
		// RMA, waits, progress and collective constructors stay timed.
		{"MPI_Get", false},
		{"MPI_Get_accumulate", false},
		{"MPI_Win_flush_all", false},
		{"MPI_Test", false},
		{"MPI_Iprobe", false},
		{"MPI_Request_get_status", false},
		{"MPI_Wait", false},
		{"MPI_Comm_dup", false},
		{"MPI_Comm_split", false},
		{"MPI_Cart_create", false},
		{"MPI_Win_create", false},
		{"MPI_Barrier", false},
	} {
		if got := Local(tc.name); got != tc.local {
			t.Errorf("Local(%s) = %v, want %v", tc.name, got, tc.local)
		}
	}
}

// A local call without a communicator gets no wrapper; one with a
// communicator gets the swap and no timer; the others get both.
func TestGenerateLeavesLocalCallsUntimed(t *testing.T) {
	protos, _ := ParseHeader(`
int MPI_Type_size(MPI_Datatype datatype, int *size); int PMPI_Type_size(MPI_Datatype datatype, int *size);
int MPI_Comm_rank(MPI_Comm comm, int *rank); int PMPI_Comm_rank(MPI_Comm comm, int *rank);
int MPI_Wait(MPI_Request *request, MPI_Status *status); int PMPI_Wait(MPI_Request *request, MPI_Status *status);`)
	files, err := generateWithInterposed(protos)
	if err != nil {
		t.Fatal(err)
	}
	src := string(files[MPICH.WrappersFile])
	if strings.Contains(src, "PMPI_Type_size(MPI_Datatype") {
		t.Errorf("MPI_Type_size is wrapped:\n%s", src)
	}
	rank := src[strings.Index(src, "int PMPI_Comm_rank("):]
	rank = rank[:strings.Index(rank, "\n}\n")]
	if !strings.Contains(rank, "GHOST_USER_COMM(comm)") || strings.Contains(rank, "ghost_prof_enter") {
		t.Errorf("MPI_Comm_rank's wrapper should swap the world and not time:\n%s", rank)
	}
	wait := src[strings.Index(src, "int PMPI_Wait("):]
	if !strings.Contains(wait[:strings.Index(wait, "\n}\n")], "ghost_prof_enter") {
		t.Errorf("MPI_Wait's wrapper does not time the call:\n%s", wait)
	}
}
