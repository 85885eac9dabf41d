/*
 * status.c -- names and messages for every status the library can return, and the runtime
 * version query.
 *
 * The library's own codes come from the CLHGEMM_STATUS_LIST X-macro in clhgemm.h, so the enum
 * and this table cannot drift apart. OpenCL errors pass through the API at their own values, so
 * they are named here too: a user who gets -5 should read "CL_OUT_OF_RESOURCES" without looking
 * up cl.h. The OpenCL codes are listed with literal values rather than the CL_* macros because
 * the headers hide the codes of versions above CL_TARGET_OPENCL_VERSION (the 2.x ones) while a
 * newer driver may still return them.
 */
#include "clhgemm.h"

#include "clhgemm_version.h"

#define CL_STATUS_LIST(X)                                                                       \
    X(CL_DEVICE_NOT_FOUND, -1, "no OpenCL device of the requested type")                        \
    X(CL_DEVICE_NOT_AVAILABLE, -2, "the OpenCL device is not available")                        \
    X(CL_COMPILER_NOT_AVAILABLE, -3, "the OpenCL compiler is not available")                    \
    X(CL_MEM_OBJECT_ALLOCATION_FAILURE, -4, "device memory allocation failed")                  \
    X(CL_OUT_OF_RESOURCES, -5, "the device ran out of resources")                               \
    X(CL_OUT_OF_HOST_MEMORY, -6, "the OpenCL runtime ran out of host memory")                   \
    X(CL_PROFILING_INFO_NOT_AVAILABLE, -7, "profiling information is not available")            \
    X(CL_MEM_COPY_OVERLAP, -8, "source and destination of a copy overlap")                      \
    X(CL_IMAGE_FORMAT_MISMATCH, -9, "image formats do not match")                               \
    X(CL_IMAGE_FORMAT_NOT_SUPPORTED, -10, "image format not supported")                         \
    X(CL_BUILD_PROGRAM_FAILURE, -11, "program build failed")                                    \
    X(CL_MAP_FAILURE, -12, "mapping a memory object failed")                                    \
    X(CL_MISALIGNED_SUB_BUFFER_OFFSET, -13, "sub-buffer offset is misaligned")                  \
    X(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, -14, "an event in the wait list failed")    \
    X(CL_COMPILE_PROGRAM_FAILURE, -15, "program compilation failed")                            \
    X(CL_LINKER_NOT_AVAILABLE, -16, "the OpenCL linker is not available")                       \
    X(CL_LINK_PROGRAM_FAILURE, -17, "program link failed")                                      \
    X(CL_DEVICE_PARTITION_FAILED, -18, "device partitioning failed")                            \
    X(CL_KERNEL_ARG_INFO_NOT_AVAILABLE, -19, "kernel argument info is not available")           \
    X(CL_INVALID_VALUE, -30, "invalid value passed to OpenCL")                                  \
    X(CL_INVALID_DEVICE_TYPE, -31, "invalid device type")                                       \
    X(CL_INVALID_PLATFORM, -32, "invalid platform")                                             \
    X(CL_INVALID_DEVICE, -33, "invalid device")                                                 \
    X(CL_INVALID_CONTEXT, -34, "invalid context")                                               \
    X(CL_INVALID_QUEUE_PROPERTIES, -35, "invalid command-queue properties")                     \
    X(CL_INVALID_COMMAND_QUEUE, -36, "invalid command queue")                                   \
    X(CL_INVALID_HOST_PTR, -37, "invalid host pointer")                                         \
    X(CL_INVALID_MEM_OBJECT, -38, "invalid memory object")                                      \
    X(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, -39, "invalid image format descriptor")               \
    X(CL_INVALID_IMAGE_SIZE, -40, "invalid image size")                                         \
    X(CL_INVALID_SAMPLER, -41, "invalid sampler")                                               \
    X(CL_INVALID_BINARY, -42, "invalid program binary")                                         \
    X(CL_INVALID_BUILD_OPTIONS, -43, "invalid build options")                                   \
    X(CL_INVALID_PROGRAM, -44, "invalid program")                                               \
    X(CL_INVALID_PROGRAM_EXECUTABLE, -45, "program has no executable for the device")           \
    X(CL_INVALID_KERNEL_NAME, -46, "no kernel of that name in the program")                     \
    X(CL_INVALID_KERNEL_DEFINITION, -47, "invalid kernel definition")                           \
    X(CL_INVALID_KERNEL, -48, "invalid kernel")                                                 \
    X(CL_INVALID_ARG_INDEX, -49, "invalid kernel argument index")                               \
    X(CL_INVALID_ARG_VALUE, -50, "invalid kernel argument value")                               \
    X(CL_INVALID_ARG_SIZE, -51, "invalid kernel argument size")                                 \
    X(CL_INVALID_KERNEL_ARGS, -52, "kernel arguments are not all set")                          \
    X(CL_INVALID_WORK_DIMENSION, -53, "invalid work dimension")                                 \
    X(CL_INVALID_WORK_GROUP_SIZE, -54, "invalid work-group size")                               \
    X(CL_INVALID_WORK_ITEM_SIZE, -55, "invalid work-item size")                                 \
    X(CL_INVALID_GLOBAL_OFFSET, -56, "invalid global offset")                                   \
    X(CL_INVALID_EVENT_WAIT_LIST, -57, "invalid event wait list")                               \
    X(CL_INVALID_EVENT, -58, "invalid event")                                                   \
    X(CL_INVALID_OPERATION, -59, "invalid operation")                                           \
    X(CL_INVALID_GL_OBJECT, -60, "invalid OpenGL object")                                       \
    X(CL_INVALID_BUFFER_SIZE, -61, "invalid buffer size")                                       \
    X(CL_INVALID_MIP_LEVEL, -62, "invalid mip level")                                           \
    X(CL_INVALID_GLOBAL_WORK_SIZE, -63, "invalid global work size")                             \
    X(CL_INVALID_PROPERTY, -64, "invalid property")                                             \
    X(CL_INVALID_IMAGE_DESCRIPTOR, -65, "invalid image descriptor")                             \
    X(CL_INVALID_COMPILER_OPTIONS, -66, "invalid compiler options")                             \
    X(CL_INVALID_LINKER_OPTIONS, -67, "invalid linker options")                                 \
    X(CL_INVALID_DEVICE_PARTITION_COUNT, -68, "invalid device partition count")                 \
    X(CL_INVALID_PIPE_SIZE, -69, "invalid pipe size")                                           \
    X(CL_INVALID_DEVICE_QUEUE, -70, "invalid device queue")                                     \
    X(CL_INVALID_SPEC_ID, -71, "invalid specialization constant id")                            \
    X(CL_MAX_SIZE_RESTRICTION_EXCEEDED, -72, "a size restriction was exceeded")                 \
    X(CL_PLATFORM_NOT_FOUND_KHR, -1001, "no OpenCL platform (ICD loader found none)")

/* Every name is written as a string literal by the X-macro, so a macro of the same name in
 * cl.h is never expanded here (#name stringises the token as written). */
typedef struct status_entry_s {
    int value;
    const char *name;
    const char *message;
} status_entry_t;

static const status_entry_t status_table[] = {
#define STATUS_ENTRY_(name, value, msg) {value, #name, msg},
    CLHGEMM_STATUS_LIST(STATUS_ENTRY_)
    CL_STATUS_LIST(STATUS_ENTRY_)
#undef STATUS_ENTRY_
};

static const status_entry_t *status_find(int status)
{
    for (size_t i = 0; i < sizeof(status_table) / sizeof(status_table[0]); i++)
        if (status_table[i].value == status) return &status_table[i];
    return NULL;
}

const char *clhgemm_status_string(int status)
{
    const status_entry_t *e = status_find(status);
    return e ? e->name : "CLHGEMM_UNKNOWN_STATUS";
}

const char *clhgemm_status_message(int status)
{
    const status_entry_t *e = status_find(status);
    return e ? e->message : "unknown status";
}

const char *clhgemm_version(void) { return CLHGEMM_VERSION_STRING; }
