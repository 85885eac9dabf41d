/*
 * device.c -- device discovery, device facts and the feature flags derived from them.
 *
 * This is the only file that reads vendor, platform or extension strings. chg_device_query()
 * turns a device's facts into CHG_FEAT_* flags once, and chg_device_feature_defines() turns
 * those flags into the CLHGEMM_FEATURE_* macros that kernels test; everything downstream (code
 * generation, parameters, kernels) looks only at the flags. A new vendor quirk therefore means
 * one new flag here and one #ifdef in a kernel, never a string compare elsewhere.
 *
 * The enumeration (all platforms in clGetPlatformIDs order, each platform's devices in
 * clGetDeviceIDs(CL_DEVICE_TYPE_ALL) order) defines the public device index. It is taken once,
 * under a mutex, and kept for the life of the process: devices do not come and go under a
 * running process, and re-querying every platform on each call would cost milliseconds. A
 * failed enumeration is not remembered, so a later call may try again.
 *
 * A spec item "local-rank" gives each process of an MPI job one device of those the spec's
 * other items select (or of the GPUs, else all devices, when it has none): the one at its local
 * rank -- its rank among the job's processes on its node, which every launcher exports -- modulo
 * their count. The device index cannot be written into the launch line for each rank, and a
 * node's ranks that all take device 0 would queue behind each other on one GPU while the
 * others idle.
 */
/* strncasecmp is POSIX, not C11; the build defines this too, but the file should not depend on
 * it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "device/device.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* cl_nv_device_attribute_query; defined here so that cl_ext.h need not be included. */
#ifndef CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV
#define CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV 0x4000
#endif
#ifndef CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV
#define CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV 0x4001
#endif
#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

/* Feature flag <-> macro name, in the order they appear in info.features. */
static const struct {
    unsigned flag;
    const char *name;
} feature_names[] = {
    {CHG_FEAT_FP64, "FP64"},         {CHG_FEAT_FMA_F32, "FMA_F32"}, {CHG_FEAT_FMA_F64, "FMA_F64"},
    {CHG_FEAT_NV_UNROLL, "NV_UNROLL"}, {CHG_FEAT_NV_PTX, "NV_PTX"},
    {CHG_FEAT_NV_MMA_F64, "NV_MMA_F64"}, {CHG_FEAT_AMD, "AMD"},     {CHG_FEAT_CPU, "CPU"},
    {CHG_FEAT_GPU, "GPU"},           {CHG_FEAT_FOREIGN_PINNED, "FOREIGN_PINNED"},
};

/* ---- small query helpers ---------------------------------------------------------------- */

/* Reads a string property of any size and stores it truncated into buf (len > 0). Querying the
 * size first matters: a driver answers CL_INVALID_VALUE, not a truncated string, when the
 * buffer is too small, and some names and extension lists are long. */
static cl_int get_string(cl_int (*query)(void *, cl_uint, size_t, void *, size_t *), void *obj,
                         cl_uint param, char *buf, size_t len)
{
    size_t size = 0;
    buf[0] = '\0';
    cl_int err = query(obj, param, 0, NULL, &size);
    if (err != CL_SUCCESS) return err;
    char *tmp = malloc(size + 1);
    if (tmp == NULL) return CL_OUT_OF_HOST_MEMORY;
    err = query(obj, param, size, tmp, NULL);
    if (err == CL_SUCCESS) {
        tmp[size] = '\0';
        snprintf(buf, len, "%s", tmp);
    }
    free(tmp);
    return err;
}

/* Adapters so that one helper serves both device and platform strings. */
static cl_int device_query_fn(void *obj, cl_uint param, size_t size, void *value, size_t *ret)
{
    return clGetDeviceInfo((cl_device_id)obj, (cl_device_info)param, size, value, ret);
}

static cl_int platform_query_fn(void *obj, cl_uint param, size_t size, void *value, size_t *ret)
{
    return clGetPlatformInfo((cl_platform_id)obj, (cl_platform_info)param, size, value, ret);
}

/* The full extension list, malloc'ed (callers free); NULL with *err set on failure. */
static char *get_extensions(cl_device_id device, cl_int *err)
{
    size_t size = 0;
    *err = clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, NULL, &size);
    if (*err != CL_SUCCESS) return NULL;
    char *ext = malloc(size + 1);
    if (ext == NULL) {
        *err = CL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    *err = clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, size, ext, NULL);
    if (*err != CL_SUCCESS) {
        free(ext);
        return NULL;
    }
    ext[size] = '\0';
    return ext;
}

/* Whole-word match in a space-separated extension list ("cl_khr_fp64" must not match
 * "cl_khr_fp64_foo"). */
static int has_extension(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n) {
        int starts = p == list || isspace((unsigned char)p[-1]);
        int ends = p[n] == '\0' || isspace((unsigned char)p[n]);
        if (starts && ends) return 1;
    }
    return 0;
}

/* "OpenCL 3.0 CUDA" -> 300, "OpenCL 1.2 pocl ..." -> 120; 0 when unparsable. */
static int parse_cl_version(const char *text)
{
    int major = 0, minor = 0;
    if (sscanf(text, "OpenCL %d.%d", &major, &minor) != 2) return 0;
    return major * 100 + minor * 10;
}

/* ---- facts and features ----------------------------------------------------------------- */

/* Lower-case letters and digits of the first word of `text` (at most len-1 of them). */
static void first_word_key(const char *text, char *out, size_t len)
{
    size_t n = 0;
    while (*text && !isalnum((unsigned char)*text)) text++;
    for (; *text && isalnum((unsigned char)*text) && n + 1 < len; text++)
        out[n++] = (char)tolower((unsigned char)*text);
    out[n] = '\0';
    if (n == 0) snprintf(out, len, "unknown");
}

/* The architecture and vendor keys of the tuning database (device.h). The platform decides
 * first where it is not the hardware vendor's own driver (PoCL reports the CPU's vendor). */
static void tuning_keys(chg_device_t *d, int nv_driver, int amd)
{
    const clhgemm_device_info_t *info = &d->info;
    const char *kind = info->kind == CLHGEMM_DEVICE_GPU   ? "gpu"
                       : info->kind == CLHGEMM_DEVICE_CPU ? "cpu"
                       : info->kind == CLHGEMM_DEVICE_ACCELERATOR ? "accelerator"
                                                                   : "other";
    if (strstr(info->platform_name, "Portable Computing Language") ||
        strncasecmp(info->platform_name, "pocl", 4) == 0)
        snprintf(d->vendor_key, sizeof d->vendor_key, "pocl");
    else if (nv_driver || strstr(info->vendor, "NVIDIA"))
        snprintf(d->vendor_key, sizeof d->vendor_key, "nvidia");
    else if (amd)
        snprintf(d->vendor_key, sizeof d->vendor_key, "amd");
    else if (strstr(info->vendor, "Intel"))
        snprintf(d->vendor_key, sizeof d->vendor_key, "intel");
    else if (strstr(info->vendor, "Apple"))
        snprintf(d->vendor_key, sizeof d->vendor_key, "apple");
    else
        first_word_key(info->vendor, d->vendor_key, sizeof d->vendor_key);

    if (strcmp(d->vendor_key, "nvidia") == 0 && info->nv_compute_capability > 0) {
        snprintf(d->arch_key, sizeof d->arch_key, "nvidia:sm_%d", info->nv_compute_capability);
    } else if (strcmp(d->vendor_key, "amd") == 0 && strncmp(info->name, "gfx", 3) == 0) {
        /* ROCm names the device by its ISA, e.g. "gfx90a:sramecc+:xnack-". */
        size_t n = strcspn(info->name, ": ");
        if (n > 40) n = 40;
        snprintf(d->arch_key, sizeof d->arch_key, "amd:%.*s", (int)n, info->name);
    } else {
        snprintf(d->arch_key, sizeof d->arch_key, "%s:%s", d->vendor_key, kind);
    }
}

/* Everything except `index`, which depends on the enumeration. */
static clhgemm_status_t query_facts(cl_device_id device, chg_device_t *out)
{
    memset(out, 0, sizeof(*out));
    clhgemm_device_info_t *info = &out->info;
    info->index = -1;
    info->device = device;

    cl_int err;
    cl_device_type type = 0;
    cl_uint cu = 0;
    cl_ulong local_mem = 0, global_mem = 0, max_alloc = 0;
    cl_device_fp_config single_cfg = 0, double_cfg = 0;
    if ((err = clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof(info->platform), &info->platform,
                               NULL)) != CL_SUCCESS ||
        (err = clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof(type), &type, NULL)) != CL_SUCCESS ||
        (err = get_string(device_query_fn, device, CL_DEVICE_NAME, info->name,
                          sizeof(info->name))) != CL_SUCCESS ||
        (err = get_string(device_query_fn, device, CL_DEVICE_VENDOR, info->vendor,
                          sizeof(info->vendor))) != CL_SUCCESS ||
        (err = get_string(device_query_fn, device, CL_DRIVER_VERSION, info->driver_version,
                          sizeof(info->driver_version))) != CL_SUCCESS ||
        (err = get_string(device_query_fn, device, CL_DEVICE_VERSION, info->device_version,
                          sizeof(info->device_version))) != CL_SUCCESS ||
        (err = get_string(platform_query_fn, info->platform, CL_PLATFORM_NAME,
                          info->platform_name, sizeof(info->platform_name))) != CL_SUCCESS ||
        (err = clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(cu), &cu, NULL)) !=
            CL_SUCCESS ||
        (err = clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                               sizeof(info->max_work_group_size), &info->max_work_group_size,
                               NULL)) != CL_SUCCESS ||
        (err = clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(local_mem), &local_mem,
                               NULL)) != CL_SUCCESS ||
        (err = clGetDeviceInfo(device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(global_mem), &global_mem,
                               NULL)) != CL_SUCCESS ||
        (err = clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(max_alloc),
                               &max_alloc, NULL)) != CL_SUCCESS ||
        (err = clGetDeviceInfo(device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof(single_cfg),
                               &single_cfg, NULL)) != CL_SUCCESS)
        return (clhgemm_status_t)err;

    char *ext = get_extensions(device, &err);
    if (ext == NULL)
        return err == CL_OUT_OF_HOST_MEMORY ? CLHGEMM_OUT_OF_HOST_MEMORY : (clhgemm_status_t)err;

    /* Optional properties: a device without double support may reject the double-config query
     * (CL_INVALID_VALUE on some 1.1 drivers) and that only means "no FP64". */
    if (clGetDeviceInfo(device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof(double_cfg), &double_cfg,
                        NULL) != CL_SUCCESS)
        double_cfg = 0;
    if (has_extension(ext, "cl_nv_device_attribute_query")) {
        cl_uint major = 0, minor = 0;
        if (clGetDeviceInfo(device, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof(major), &major,
                            NULL) == CL_SUCCESS &&
            clGetDeviceInfo(device, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, sizeof(minor), &minor,
                            NULL) == CL_SUCCESS)
            info->nv_compute_capability = (int)(major * 10 + minor);
    }

    info->kind = (type & CL_DEVICE_TYPE_GPU)           ? CLHGEMM_DEVICE_GPU
                 : (type & CL_DEVICE_TYPE_CPU)         ? CLHGEMM_DEVICE_CPU
                 : (type & CL_DEVICE_TYPE_ACCELERATOR) ? CLHGEMM_DEVICE_ACCELERATOR
                                                       : CLHGEMM_DEVICE_OTHER;
    info->has_fp64 = has_extension(ext, "cl_khr_fp64") || double_cfg != 0;
    info->compute_units = cu;
    info->local_mem_bytes = local_mem;
    info->global_mem_bytes = global_mem;
    info->max_alloc_bytes = max_alloc;
    out->cl_version = parse_cl_version(info->device_version);

    /* The feature decisions. NV_PTX needs the NVIDIA driver itself (vendor and platform both
     * NVIDIA): PoCL's CUDA backend reports vendor NVIDIA too but does not accept inline PTX. */
    unsigned f = 0;
    const int nv_driver = strstr(info->vendor, "NVIDIA") && strstr(info->platform_name, "NVIDIA");
    const int amd = strstr(info->vendor, "Advanced Micro Devices") || strstr(info->vendor, "AMD");
    if (info->has_fp64) f |= CHG_FEAT_FP64;
    if (single_cfg & CL_FP_FMA) f |= CHG_FEAT_FMA_F32;
    if (info->has_fp64 && (double_cfg & CL_FP_FMA)) f |= CHG_FEAT_FMA_F64;
    if (has_extension(ext, "cl_nv_pragma_unroll")) f |= CHG_FEAT_NV_UNROLL;
    if (nv_driver) f |= CHG_FEAT_NV_PTX;
    if (nv_driver && info->nv_compute_capability >= 80) f |= CHG_FEAT_NV_MMA_F64;
    if (amd && info->kind == CLHGEMM_DEVICE_GPU) f |= CHG_FEAT_AMD;
    if (info->kind == CLHGEMM_DEVICE_CPU) f |= CHG_FEAT_CPU;
    if (info->kind == CLHGEMM_DEVICE_GPU) f |= CHG_FEAT_GPU;
    if (nv_driver || strstr(info->platform_name, "Portable Computing Language")) f |= CHG_FEAT_FOREIGN_PINNED;
    out->features = f;
    free(ext);

    tuning_keys(out, nv_driver, amd);

    size_t used = 0;
    for (size_t i = 0; i < sizeof(feature_names) / sizeof(feature_names[0]); i++) {
        if (!(f & feature_names[i].flag)) continue;
        int n = snprintf(info->features + used, sizeof(info->features) - used, "%s%s",
                         used ? " " : "", feature_names[i].name);
        if (n > 0) used += (size_t)n;
    }
    return CLHGEMM_SUCCESS;
}

void chg_device_feature_defines(const chg_device_t *dev, chg_str_t *s)
{
    for (size_t i = 0; i < sizeof(feature_names) / sizeof(feature_names[0]); i++)
        if (dev->features & feature_names[i].flag)
            chg_str_printf(s, "#define CLHGEMM_FEATURE_%s 1\n", feature_names[i].name);
}

/* ---- enumeration ------------------------------------------------------------------------ */

static pthread_mutex_t enum_lock = PTHREAD_MUTEX_INITIALIZER;
static chg_device_t *enum_devs; /* immutable once enum_done is set */
static size_t enum_count;
static int enum_done;

/* Takes the enumeration; call with enum_lock held. */
static clhgemm_status_t enumerate_locked(void)
{
    if (enum_done) return CLHGEMM_SUCCESS;

    cl_uint nplat = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &nplat);
    if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && nplat == 0)) {
        chg_log(1, "no OpenCL platform found");
        return CLHGEMM_NO_DEVICE;
    }
    if (err != CL_SUCCESS) return (clhgemm_status_t)err;
    cl_platform_id *plats = malloc(nplat * sizeof(*plats));
    if (plats == NULL) return CLHGEMM_OUT_OF_HOST_MEMORY;
    if ((err = clGetPlatformIDs(nplat, plats, NULL)) != CL_SUCCESS) {
        free(plats);
        return (clhgemm_status_t)err;
    }

    clhgemm_status_t st = CLHGEMM_SUCCESS;
    chg_device_t *devs = NULL;
    size_t count = 0;
    for (cl_uint p = 0; p < nplat && st == CLHGEMM_SUCCESS; p++) {
        cl_uint ndev = 0;
        err = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &ndev);
        if (err == CL_DEVICE_NOT_FOUND || (err == CL_SUCCESS && ndev == 0)) continue;
        if (err != CL_SUCCESS) {
            st = (clhgemm_status_t)err;
            break;
        }
        cl_device_id *ids = malloc(ndev * sizeof(*ids));
        chg_device_t *grown = realloc(devs, (count + ndev) * sizeof(*devs));
        if (grown != NULL) devs = grown;
        if (ids == NULL || grown == NULL) {
            free(ids);
            st = CLHGEMM_OUT_OF_HOST_MEMORY;
            break;
        }
        if ((err = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, ndev, ids, NULL)) != CL_SUCCESS) {
            free(ids);
            st = (clhgemm_status_t)err;
            break;
        }
        for (cl_uint d = 0; d < ndev && st == CLHGEMM_SUCCESS; d++) {
            st = query_facts(ids[d], &devs[count]);
            if (st == CLHGEMM_SUCCESS) {
                devs[count].info.index = (int)count;
                chg_log(2, "device %d: %s (%s; %s) features: %s", devs[count].info.index,
                        devs[count].info.name, devs[count].info.platform_name,
                        devs[count].info.driver_version, devs[count].info.features);
                count++;
            }
        }
        free(ids);
    }
    free(plats);

    if (st == CLHGEMM_SUCCESS && count == 0) st = CLHGEMM_NO_DEVICE;
    if (st != CLHGEMM_SUCCESS) {
        free(devs);
        return st;
    }
    enum_devs = devs;
    enum_count = count;
    enum_done = 1;
    return CLHGEMM_SUCCESS;
}

/* The cached enumeration. The array is written only before enum_done is set under the lock, so
 * after a successful return it may be read without holding the lock. */
static clhgemm_status_t enumeration(const chg_device_t **devs, size_t *count)
{
    pthread_mutex_lock(&enum_lock);
    clhgemm_status_t st = enumerate_locked();
    pthread_mutex_unlock(&enum_lock);
    *devs = enum_devs;
    *count = st == CLHGEMM_SUCCESS ? enum_count : 0;
    return st;
}

clhgemm_status_t chg_device_query(cl_device_id device, chg_device_t *out)
{
    if (device == NULL || out == NULL) return CLHGEMM_INVALID_ARGUMENT;
    const chg_device_t *devs;
    size_t count;
    /* An enumerated device's facts are already known; a device outside the enumeration (a
     * sub-device, say) is queried afresh and keeps index -1. */
    if (enumeration(&devs, &count) == CLHGEMM_SUCCESS) {
        for (size_t i = 0; i < count; i++) {
            if (devs[i].info.device == device) {
                *out = devs[i];
                return CLHGEMM_SUCCESS;
            }
        }
    }
    return query_facts(device, out);
}

/* ---- public API ------------------------------------------------------------------------- */

/* Case-insensitive substring search (strcasestr is a GNU extension). */
static int contains_nocase(const char *hay, const char *needle, size_t n)
{
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0) return 1;
    return n == 0;
}

/* Does the spec item item[0..n) select dev? */
static int item_matches(const char *item, size_t n, const clhgemm_device_info_t *dev)
{
    size_t digits = 0;
    while (digits < n && isdigit((unsigned char)item[digits])) digits++;
    if (digits == n) {
        /* All digits: an index. Compare as text-to-number without overflow worries by
         * rejecting absurdly long numbers. */
        if (n > 9) return 0;
        return atoi(item) == dev->index;
    }
    if (n == 3 && strncasecmp(item, "gpu", 3) == 0) return dev->kind == CLHGEMM_DEVICE_GPU;
    if (n == 3 && strncasecmp(item, "cpu", 3) == 0) return dev->kind == CLHGEMM_DEVICE_CPU;
    if (n == 11 && strncasecmp(item, "accelerator", 11) == 0)
        return dev->kind == CLHGEMM_DEVICE_ACCELERATOR;
    return contains_nocase(dev->name, item, n) || contains_nocase(dev->vendor, item, n) ||
           contains_nocase(dev->platform_name, item, n);
}

static int is_local_rank_item(const char *item, size_t n)
{
    return n == 10 && strncasecmp(item, "local-rank", 10) == 0;
}

/* Does the whole spec select dev? *any_item is set when the spec has a non-empty item that
 * selects devices ("local-rank" picks among them, it selects none). *per_rank, when not NULL,
 * is set when the spec has the item "local-rank". dev NULL: no match, every item seen. */
static int spec_matches(const char *spec, const clhgemm_device_info_t *dev, int *any_item,
                        int *per_rank)
{
    const char *p = spec;
    for (;;) {
        const char *end = strchr(p, ',');
        if (end == NULL) end = p + strlen(p);
        const char *a = p, *b = end;
        while (a < b && isspace((unsigned char)*a)) a++;
        while (b > a && isspace((unsigned char)b[-1])) b--;
        if (b > a && is_local_rank_item(a, (size_t)(b - a))) {
            if (per_rank) *per_rank = 1;
        } else if (b > a) {
            *any_item = 1;
            if (dev && item_matches(a, (size_t)(b - a), dev)) return 1;
        }
        if (*end == '\0') return 0;
        p = end + 1;
    }
}

/* ---- one device per MPI rank ------------------------------------------------------------- */

/* The launchers' variables for a process's rank among the job's processes on its node, and for
 * their number: Open MPI's mpirun, MPICH's and Intel MPI's Hydra, Slurm's srun (whose count,
 * SLURM_TASKS_PER_NODE, is a per-node list, not one number), MVAPICH2's mpirun_rsh. */
static const char *const local_rank_vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                              "SLURM_LOCALID", "MV2_COMM_WORLD_LOCAL_RANK"};
static const char *const local_size_vars[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS",
                                              "MV2_COMM_WORLD_LOCAL_SIZE"};

/* The first of names[0..n) set to a number >= 0 (and its name in *which), else -1. */
static long first_count(const char *const *names, size_t n, const char **which)
{
    for (size_t i = 0; i < n; i++) {
        const char *v = chg_getenv(names[i]);
        long x;
        if (v && chg_parse_long(v, &x) && x >= 0) {
            *which = names[i];
            return x;
        }
    }
    return -1;
}

/* The position, among the n devices selected, of this process's device. One line on stderr
 * when the node's ranks outnumber the devices (they share): from local rank 0 where the
 * launcher tells the count, else from each rank beyond the devices. */
static size_t local_rank_pick(size_t n)
{
    const char *rank_var = NULL, *size_var = NULL;
    long rank = first_count(local_rank_vars, sizeof local_rank_vars / sizeof *local_rank_vars,
                            &rank_var);
    const long size = first_count(local_size_vars,
                                  sizeof local_size_vars / sizeof *local_size_vars, &size_var);
    if (rank < 0) {
        chg_log(1, "CLHGEMM_DEVICES=local-rank: no local rank in the environment (%s, %s, %s): "
                   "the first of %zu devices", local_rank_vars[0], local_rank_vars[1],
                local_rank_vars[2], n);
        return 0;
    }
    const size_t pick = (size_t)rank % n;
    chg_log(1, "CLHGEMM_DEVICES=local-rank: local rank %ld (%s) takes selected device %zu of %zu",
            rank, rank_var, pick, n);
    if (size > (long)n && rank == 0)
        chg_warn_once("local-rank-share",
                      "CLHGEMM_DEVICES=local-rank: %ld ranks on this node (%s) for %zu "
                      "device%s: they share them, local rank r on device r mod %zu", size,
                      size_var, n, n == 1 ? "" : "s", n);
    else if (size < 0 && rank >= (long)n)
        chg_warn_once("local-rank-share",
                      "CLHGEMM_DEVICES=local-rank: local rank %ld (%s) beyond the %zu device%s: "
                      "it shares device %zu of them with local rank %zu", rank, rank_var, n,
                      n == 1 ? "" : "s", pick, pick);
    return pick;
}

clhgemm_status_t clhgemm_devices_get(const char *spec, clhgemm_device_info_t *out,
                                     size_t capacity, size_t *count)
{
    if (count == NULL || (out == NULL && capacity > 0)) return CLHGEMM_INVALID_ARGUMENT;
    *count = 0;
    const int env_spec = spec == NULL && chg_getenv("CLHGEMM_DEVICES") != NULL;
    if (spec == NULL) spec = chg_getenv("CLHGEMM_DEVICES");
    if (spec == NULL) spec = "";

    const chg_device_t *devs;
    size_t ndev;
    clhgemm_status_t st = enumeration(&devs, &ndev);
    if (st != CLHGEMM_SUCCESS) return st;

    /* Whether the spec selects (any_item) and whether it picks by local rank do not depend on
     * the device; local-rank alone picks among the GPUs where there are any, as
     * clhgemm_create would take them. */
    int any_item = 0, per_rank = 0, gpus_only = 0;
    (void)spec_matches(spec, NULL, &any_item, &per_rank);
    for (size_t i = 0; i < ndev && per_rank && !any_item; i++)
        gpus_only |= devs[i].info.kind == CLHGEMM_DEVICE_GPU;
    size_t matched = 0, pick = 0;
    for (int pass = 0; pass < 1 + per_rank; pass++) {
        matched = 0;
        for (size_t i = 0; i < ndev; i++) {
            int seen = 0;
            /* A spec with no selecting item (empty, blanks, commas) selects everything. */
            int sel = (spec_matches(spec, &devs[i].info, &seen, NULL) || !any_item) &&
                      (!gpus_only || devs[i].info.kind == CLHGEMM_DEVICE_GPU);
            if (!sel) continue;
            if (per_rank ? pass == 1 && matched == pick && capacity > 0 : matched < capacity)
                out[per_rank ? 0 : matched] = devs[i].info;
            matched++;
        }
        if (per_rank && pass == 0 && matched > 0) pick = local_rank_pick(matched);
    }
    *count = per_rank && matched > 0 ? 1 : matched;
    if (matched == 0 && any_item) {
        if (env_spec)
            chg_env_warn("CLHGEMM_DEVICES", spec, "matches no device; clhgemm_devices_get returns "
                                                  "CLHGEMM_INVALID_DEVICE_SPEC");
        else
            chg_log(1, "device spec \"%s\" matches no device", spec);
        return CLHGEMM_INVALID_DEVICE_SPEC;
    }
    return CLHGEMM_SUCCESS;
}

clhgemm_status_t clhgemm_device_info(cl_device_id device, clhgemm_device_info_t *info)
{
    if (device == NULL || info == NULL) return CLHGEMM_INVALID_ARGUMENT;
    chg_device_t dev;
    clhgemm_status_t st = chg_device_query(device, &dev);
    if (st == CLHGEMM_SUCCESS) *info = dev.info;
    return st;
}
