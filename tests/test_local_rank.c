/*
 * test_local_rank.c -- the device spec item "local-rank" (src/device/device.c): one device per
 * MPI rank, from the launcher's local rank.
 *
 * Run with at least two devices (PoCL: POCL_DEVICES="pthread pthread"), as an MPI rank would see
 * a node's GPUs: the local rank, set here as each launcher exports it, must pick the selected
 * devices round-robin, by itself ("local-rank") and among a spec's other items ("cpu,local-rank",
 * "0,local-rank"), through clhgemm_devices_get's spec and through CLHGEMM_DEVICES; without any
 * local rank it takes the first; and ranks that outnumber the devices get one line on stderr that
 * says they share them (checked in a file stderr is sent to).
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

static const char *const rank_vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                        "SLURM_LOCALID", "MV2_COMM_WORLD_LOCAL_RANK"};

static void clear_ranks(void)
{
    for (size_t i = 0; i < sizeof rank_vars / sizeof *rank_vars; i++) unsetenv(rank_vars[i]);
    unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
}

/* The index of the one device spec gives (-1: not exactly one, or an error). */
static int picked(const char *spec)
{
    clhgemm_device_info_t info[4];
    size_t count = 0;
    clhgemm_status_t st = clhgemm_devices_get(spec, info, 4, &count);
    if (st != CLHGEMM_SUCCESS || count != 1) return -1;
    return info[0].index;
}

static void check_round_robin(int ndev)
{
    char rank[16];
    for (size_t v = 0; v < sizeof rank_vars / sizeof *rank_vars; v++) {
        for (int r = 0; r < 2 * ndev + 1; r++) {
            clear_ranks();
            snprintf(rank, sizeof rank, "%d", r);
            setenv(rank_vars[v], rank, 1);
            int got = picked("local-rank");
            EXPECT(got == r % ndev, "%s=%d, \"local-rank\": device %d, want %d", rank_vars[v], r,
                   got, r % ndev);
            got = picked(" CPU , local-rank ");
            EXPECT(got == r % ndev, "%s=%d, \"cpu,local-rank\": device %d, want %d", rank_vars[v],
                   r, got, r % ndev);
            got = picked("1,local-rank");
            EXPECT(got == 1, "%s=%d, \"1,local-rank\": device %d, want 1", rank_vars[v], r, got);
            setenv("CLHGEMM_DEVICES", "local-rank", 1);
            got = picked(NULL);
            unsetenv("CLHGEMM_DEVICES");
            EXPECT(got == r % ndev, "%s=%d, CLHGEMM_DEVICES=local-rank: device %d, want %d",
                   rank_vars[v], r, got, r % ndev);
        }
    }
    /* Open MPI's variable first when several launchers' are set (a Slurm job running mpirun). */
    clear_ranks();
    setenv("SLURM_LOCALID", "0", 1);
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1);
    EXPECT(picked("local-rank") == 1, "OMPI_COMM_WORLD_LOCAL_RANK must come before SLURM_LOCALID");
    clear_ranks();
    EXPECT(picked("local-rank") == 0, "no local rank: the first device");
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", "x", 1);
    EXPECT(picked("local-rank") == 0, "a local rank that is no number: the first device");
    size_t count = 0;
    clhgemm_device_info_t info[4];
    EXPECT(clhgemm_devices_get("no-such-device,local-rank", info, 4, &count) ==
               CLHGEMM_INVALID_DEVICE_SPEC,
           "a spec whose other items select nothing is still invalid");
    EXPECT(clhgemm_devices_get("local-rank", NULL, 0, &count) == CLHGEMM_SUCCESS && count == 1,
           "capacity 0: count %zu, want 1", count);
}

/* More ranks on the node than devices: local rank 0 says so, once per process. */
static void check_share_line(int ndev)
{
    char path[] = "/tmp/clhgemm-local-rank-XXXXXX";
    int fd = mkstemp(path);
    if (!EXPECT(fd >= 0, "mkstemp")) return;
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    clear_ranks();
    char size[16];
    snprintf(size, sizeof size, "%d", 2 * ndev);
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", "0", 1);
    setenv("OMPI_COMM_WORLD_LOCAL_SIZE", size, 1);
    int got = picked("local-rank");
    got = got == picked("local-rank") ? got : -1;
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    EXPECT(got == 0, "rank 0 of %s: device %d, want 0", size, got);
    char text[1024] = "";
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, text, sizeof text - 1);
    text[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(path);
    char want[128];
    snprintf(want, sizeof want,
             "%d ranks on this node (OMPI_COMM_WORLD_LOCAL_SIZE) for %d devices: they share them",
             2 * ndev, ndev);
    const char *line = strstr(text, want);
    EXPECT(line != NULL, "no line saying the ranks share the devices in:\n%s", text);
    EXPECT(line == NULL || strstr(line + strlen(want), "ranks on this node") == NULL,
           "the line came more than once:\n%s", text);
    printf("%s", text);
    clear_ranks();
}

int main(void)
{
    size_t ndev = 0;
    clhgemm_status_t st = clhgemm_devices_get("", NULL, 0, &ndev);
    if (st == CLHGEMM_NO_DEVICE) {
        printf("SKIP: no OpenCL device\n");
        return TC_SKIP;
    }
    if (!EXPECT(st == CLHGEMM_SUCCESS && ndev >= 2, "%s, %zu devices: run with two or more "
                "(POCL_DEVICES=\"pthread pthread\")", clhgemm_status_string(st), ndev))
        return 1;
    unsetenv("CLHGEMM_DEVICES");
    check_share_line((int)ndev); /* first: the line comes once per process */
    check_round_robin((int)ndev);
    printf("test_local_rank: %d checks, %d failures (%zu devices)\n", tc_checks(), tc_failures(),
           ndev);
    return tc_failures() ? 1 : 0;
}
