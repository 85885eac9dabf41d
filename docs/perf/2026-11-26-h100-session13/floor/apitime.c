/* LD_PRELOAD: total host time and count per OpenCL API function, printed at exit */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec*1e-3;}
#define NF 32
static const char *nm[NF]; static double tt[NF]; static long cnt[NF]; static int nf;
static int slot(const char*n){for(int i=0;i<nf;i++) if(nm[i]==n) return i; nm[nf]=n; return nf++;}
#define W(ret, name, params, args) \
  ret name params { static ret (*fn_) params; static int slot_=-1; if(!fn_){fn_=dlsym(RTLD_NEXT,#name); slot_=slot(#name);} \
  double t0=now(); ret rv_=fn_ args; tt[slot_]+=now()-t0; cnt[slot_]++; return rv_; }
W(cl_int, clGetMemObjectInfo, (cl_mem m, cl_mem_info p, size_t s, void*v, size_t*r), (m,p,s,v,r))
W(cl_int, clGetCommandQueueInfo, (cl_command_queue q, cl_command_queue_info p, size_t s, void*v, size_t*r), (q,p,s,v,r))
W(cl_int, clSetKernelArg, (cl_kernel k, cl_uint i, size_t s, const void*v), (k,i,s,v))
W(cl_int, clEnqueueNDRangeKernel, (cl_command_queue q, cl_kernel k, cl_uint d, const size_t*o, const size_t*g, const size_t*l, cl_uint n, const cl_event*w, cl_event*e), (q,k,d,o,g,l,n,w,e))
W(cl_kernel, clCreateKernel, (cl_program p, const char*n, cl_int*e), (p,n,e))
W(cl_mem, clCreateBuffer, (cl_context c, cl_mem_flags f, size_t s, void*h, cl_int*e), (c,f,s,h,e))
W(cl_mem, clCreateSubBuffer, (cl_mem m, cl_mem_flags f, cl_buffer_create_type t, const void*i, cl_int*e), (m,f,t,i,e))
W(cl_int, clReleaseMemObject, (cl_mem m), (m))
W(cl_int, clRetainMemObject, (cl_mem m), (m))
W(cl_int, clReleaseKernel, (cl_kernel k), (k))
W(cl_int, clRetainKernel, (cl_kernel k), (k))
W(cl_int, clEnqueueMarkerWithWaitList, (cl_command_queue q, cl_uint n, const cl_event*w, cl_event*e), (q,n,w,e))
W(cl_int, clEnqueueBarrierWithWaitList, (cl_command_queue q, cl_uint n, const cl_event*w, cl_event*e), (q,n,w,e))
W(cl_int, clGetDeviceInfo, (cl_device_id d, cl_device_info p, size_t s, void*v, size_t*r), (d,p,s,v,r))
W(cl_int, clGetKernelWorkGroupInfo, (cl_kernel k, cl_device_id d, cl_kernel_work_group_info p, size_t s, void*v, size_t*r), (k,d,p,s,v,r))
W(cl_int, clGetEventInfo, (cl_event e, cl_event_info p, size_t s, void*v, size_t*r), (e,p,s,v,r))
W(cl_int, clReleaseEvent, (cl_event e), (e))
W(cl_int, clRetainEvent, (cl_event e), (e))
W(cl_int, clFlush, (cl_command_queue q), (q))
W(cl_int, clGetContextInfo, (cl_context c, cl_context_info p, size_t s, void*v, size_t*r), (c,p,s,v,r))
W(cl_int, clEnqueueFillBuffer, (cl_command_queue q, cl_mem b, const void*p, size_t ps, size_t o, size_t s, cl_uint n, const cl_event*w, cl_event*e), (q,b,p,ps,o,s,n,w,e))
W(cl_int, clEnqueueCopyBuffer, (cl_command_queue q, cl_mem a, cl_mem b, size_t so, size_t d, size_t s, cl_uint n, const cl_event*w, cl_event*e), (q,a,b,so,d,s,n,w,e))
W(cl_int, clGetKernelInfo, (cl_kernel k, cl_kernel_info p, size_t s, void*v, size_t*r), (k,p,s,v,r))
W(cl_int, clGetProgramInfo, (cl_program k, cl_program_info p, size_t s, void*v, size_t*r), (k,p,s,v,r))
W(cl_int, clWaitForEvents, (cl_uint n, const cl_event*e), (n,e))
W(cl_int, clFinish, (cl_command_queue q), (q))
__attribute__((destructor)) static void dump(void){ for(int i=0;i<nf;i++) fprintf(stderr,"apitime %-28s %8ld calls %10.1f us total %7.2f us each\n",nm[i],cnt[i],tt[i],cnt[i]?tt[i]/cnt[i]:0); }
