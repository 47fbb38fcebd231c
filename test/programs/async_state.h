/* Whether MPI_Win_get_info reports a window as redirected (async_config
 * "on"): the state Ghost's adaptation has given it. Shared by the test
 * programs that watch windows switch. */
#ifndef ASYNC_STATE_H
#define ASYNC_STATE_H
#include <mpi.h>
#include <string.h>

static int state_on(MPI_Win win)
{
    MPI_Info info;
    char v[16] = "";
    int flag = 0, len = sizeof v;
    MPI_Win_get_info(win, &info);
    MPI_Info_get_string(info, "async_config", &len, v, &flag);
    MPI_Info_free(&info);
    return flag && strcmp(v, "on") == 0;
}
#endif
