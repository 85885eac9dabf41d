/*
 * event.c -- the host pipeline's OpenCL events: waits that report a failed command (event.h).
 */
#include "host/event.h"

cl_int chg_ev_wait(cl_event *e)
{
    if (!*e) return CL_SUCCESS;
    cl_int err = clWaitForEvents(1, e);
    cl_int st;
    if (err == CL_SUCCESS &&
        clGetEventInfo(*e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL) == CL_SUCCESS &&
        st < 0)
        err = st;
    chg_ev_release(e);
    return err;
}

int chg_ev_done(cl_event e)
{
    cl_int st = CL_COMPLETE;
    if (!e) return 1;
    if (clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL) != CL_SUCCESS) return 1;
    return st == CL_COMPLETE || st < 0;
}
