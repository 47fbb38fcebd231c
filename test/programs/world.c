/* Everything the application can learn about MPI_COMM_WORLD must describe
 * the user ranks only. Run with N user ranks; argv[1] is N as the launcher
 * promised it, argv[2] the expected number of user ranks per node, and the
 * optional argv[3] a thread level (single, funneled, serialized, multiple)
 * to initialize with MPI_Init_thread instead of MPI_Init. */
#include "check.h"
#include <stdlib.h>
#include <string.h>

static int handler_saw_world;
static int handler_code;

static void user_handler(MPI_Comm *comm, int *code, ...)
{
    handler_saw_world = (*comm == MPI_COMM_WORLD);
    handler_code = *code;
}

/* A second function, to tell which handler a communicator calls. */
static MPI_Comm other_handler_comm = MPI_COMM_NULL;
static void other_handler(MPI_Comm *comm, int *code, ...)
{
    (void)code;
    other_handler_comm = *comm;
}

static int thread_level(const char *name)
{
    if (strcmp(name, "funneled") == 0)
        return MPI_THREAD_FUNNELED;
    if (strcmp(name, "serialized") == 0)
        return MPI_THREAD_SERIALIZED;
    if (strcmp(name, "multiple") == 0)
        return MPI_THREAD_MULTIPLE;
    return MPI_THREAD_SINGLE;
}

int main(int argc, char **argv)
{
    int required = -1, provided = -1;
    if (argc > 3) {
        required = thread_level(argv[3]);
        MPI_Init_thread(&argc, &argv, required, &provided);
    } else {
        MPI_Init(&argc, &argv);
    }
    int want_size = argc > 1 ? atoi(argv[1]) : -1;
    int want_per_node = argc > 2 ? atoi(argv[2]) : -1;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == want_size, "size %d, want %d", size, want_size);
    CHECK(rank >= 0 && rank < size, "rank %d", rank);
    if (required >= 0) {
        int queried;
        MPI_Query_thread(&queried);
        CHECK(provided >= required && queried == provided, "thread level %d, asked %d", provided, required);
    }

    /* Ranks are distinct and dense: their sum and a gather in order. */
    int sum = -1;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == size * (size - 1) / 2, "sum of ranks %d", sum);
    int *all = malloc(sizeof(int) * size);
    MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++)
        CHECK(all[i] == i, "allgather[%d] = %d", i, all[i]);
    int root_val = rank == 0 ? 4242 : 0;
    MPI_Bcast(&root_val, 1, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(root_val == 4242, "bcast %d", root_val);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Point to point around a ring. */
    int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
    MPI_Sendrecv(&rank, 1, MPI_INT, right, 7, &got, 1, MPI_INT, left, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    CHECK(got == left, "ring got %d want %d", got, left);

    /* Split: evens and odds, reversed order inside each half. */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
    int hrank, hsize;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    int want_hsize = rank % 2 == 0 ? (size + 1) / 2 : size / 2;
    CHECK(hsize == want_hsize, "half size %d want %d", hsize, want_hsize);
    int above = 0; /* members of my half with a larger world rank come first */
    for (int r = rank + 2; r < size; r += 2)
        above++;
    CHECK(hrank == above, "half rank %d want %d", hrank, above);

    /* Node split sees only the users of this node. */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nsize;
    MPI_Comm_size(node, &nsize);
    if (want_per_node > 0)
        CHECK(nsize == want_per_node, "node size %d want %d", nsize, want_per_node);

    /* Groups, compare, dup, create. */
    MPI_Group wgroup, dgroup;
    MPI_Comm_group(MPI_COMM_WORLD, &wgroup);
    int gsize;
    MPI_Group_size(wgroup, &gsize);
    CHECK(gsize == size, "group size %d", gsize);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int cmp;
    MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &cmp);
    CHECK(cmp == MPI_IDENT, "compare(world, world) = %d", cmp);
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &cmp);
    CHECK(cmp == MPI_CONGRUENT, "compare(world, dup) = %d", cmp);
    MPI_Comm_group(dup, &dgroup);
    MPI_Group_compare(wgroup, dgroup, &cmp);
    CHECK(cmp == MPI_IDENT, "group compare = %d", cmp);
    int zero = 0, translated = -1;
    MPI_Group_translate_ranks(dgroup, 1, &zero, wgroup, &translated);
    CHECK(translated == 0, "translate %d", translated);
    MPI_Group evens;
    int range[1][3] = {{0, size - 1, 2}};
    MPI_Group_range_incl(wgroup, 1, range, &evens);
    MPI_Comm even_comm;
    MPI_Comm_create(MPI_COMM_WORLD, evens, &even_comm);
    CHECK((rank % 2 == 0) == (even_comm != MPI_COMM_NULL), "comm_create membership");
    if (even_comm != MPI_COMM_NULL)
        MPI_Comm_free(&even_comm);

    /* An intercommunicator between the halves, with the world as peer. */
    if (size >= 2) {
        MPI_Comm inter;
        /* Each half is ordered by descending world rank, so its leader is
         * its highest world rank. */
        int other = 1 - rank % 2;
        int remote_leader = (size - 1) % 2 == other ? size - 1 : size - 2;
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, remote_leader, 99, &inter);
        int rsize;
        MPI_Comm_remote_size(inter, &rsize);
        CHECK(rsize == size - hsize, "intercomm remote size %d", rsize);
        MPI_Comm_free(&inter);
    }

    /* Predefined attributes are readable on the world. */
    int *tag_ub, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    CHECK(flag && *tag_ub >= 32767, "MPI_TAG_UB flag %d", flag);
    int *wtime_global;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &wtime_global, &flag);
    CHECK(flag, "MPI_WTIME_IS_GLOBAL missing");
    int *universe;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &universe, &flag);
    if (flag)
        CHECK(*universe >= size, "universe %d < size %d", *universe, size);
    /* User attributes set on the world are read back from the world. */
    int keyval, value = 17, *back;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, &value);
    MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, &back, &flag);
    CHECK(flag && back == &value, "user attribute lost");
    MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
    MPI_Comm_free_keyval(&keyval);

    /* The name. */
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0, "name %s", name);

    /* Errhandlers: ERRORS_RETURN makes a bad rank an error code, and a user
     * handler sees MPI_COMM_WORLD itself. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int bad = MPI_Send(&rank, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    int eclass = MPI_SUCCESS;
    MPI_Error_class(bad, &eclass);
    CHECK(eclass == MPI_ERR_RANK, "send to rank %d gave class %d", size, eclass);
    MPI_Errhandler eh, got_eh;
    MPI_Comm_create_errhandler(user_handler, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got_eh);
    CHECK(got_eh == eh, "get_errhandler returned another handle");
    MPI_Errhandler_free(&got_eh);
    MPI_Errhandler_free(&eh); /* the world keeps its reference */
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
    CHECK(handler_saw_world, "user errhandler did not see MPI_COMM_WORLD");
    CHECK(handler_code == MPI_ERR_OTHER, "handler code %d", handler_code);
    handler_saw_world = 0;
    MPI_Send(&rank, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    CHECK(handler_saw_world, "user errhandler not called on an error in the world");
    /* A communicator made from the world keeps the handler it inherited
     * when the world gets another one. */
    MPI_Comm inherited;
    MPI_Comm_dup(MPI_COMM_WORLD, &inherited);
    MPI_Errhandler other;
    MPI_Comm_create_errhandler(other_handler, &other);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, other);
    MPI_Errhandler_free(&other);
    handler_saw_world = 0;
    handler_code = 0;
    MPI_Comm_call_errhandler(inherited, MPI_ERR_OTHER);
    CHECK(handler_code == MPI_ERR_OTHER && !handler_saw_world && other_handler_comm == MPI_COMM_NULL,
          "the duplicate of the world did not call the handler it inherited");
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
    CHECK(other_handler_comm == MPI_COMM_WORLD, "the world's new handler did not see MPI_COMM_WORLD");
    MPI_Comm_free(&inherited);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    MPI_Group_free(&evens);
    MPI_Group_free(&wgroup);
    MPI_Group_free(&dgroup);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&node);
    MPI_Comm_free(&half);
    free(all);
    check_summary();
    MPI_Finalize();
    return 0;
}
