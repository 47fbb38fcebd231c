package redirect

// HintDoc documents one info key of MPI_Win_allocate for the reference
// (docs/reference.md, whose key table is generated from HintDocs by
// internal/refdoc). Its text is markdown.
type HintDoc struct {
	Key      string
	Accepted string
	Default  string
	Meaning  string
}

// HintDocs lists every key ParseHints reads, in the order of HintKeys (a
// test holds the two lists together).
var HintDocs = []HintDoc{
	{Key: KeyEpochsUsed, Accepted: "comma-separated subset of `lock`, `lockall`, `fence`, `pscw`", Default: "all four",
		Meaning: "the synchronizations the window will use; without `lock`, `lock_all` takes no lock"},
	{Key: KeyNoLocalLoadStore, Accepted: "`true`, `false`", Default: "`false`",
		Meaning: "the process never loads or stores its own window memory directly"},
	{Key: KeyAsyncConfig, Accepted: "`on`, `off`", Default: "`GHOST_ASYNC` (`on`)",
		Meaning: "`off`: a plain MPICH window with no ghost at all (its segments are still cache-line aligned, see below); `on`: redirected even under `GHOST_ASYNC=off`, and under `GHOST_ASYNC=auto` left alone by the votes: only `MPI_Win_set_info` switches it"},
}
