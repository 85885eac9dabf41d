/* N calls of clhgemm_?gemm_cl n^3 (argv: d|s n beta calls), each waited for; prints the median call-return and total */
#define CL_TARGET_OPENCL_VERSION 300
#define _POSIX_C_SOURCE 200809L
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "clhgemm.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec*1e-3;}
int main(int argc,char**argv){
  int dbl=argv[1][0]=='d', n=atoi(argv[2]); double beta=atof(argv[3]); int N=atoi(argv[4]);
  cl_platform_id pf[8]; cl_uint np; clGetPlatformIDs(8,pf,&np);
  cl_device_id dev=NULL; for(cl_uint i=0;i<np&&!dev;i++) if(clGetDeviceIDs(pf[i],CL_DEVICE_TYPE_ALL,1,&dev,NULL)!=CL_SUCCESS) dev=NULL;
  cl_int e; cl_context ctx=clCreateContext(NULL,1,&dev,NULL,NULL,&e);
  cl_command_queue q=clCreateCommandQueueWithProperties(ctx,dev,NULL,&e);
  size_t es=dbl?8:4, bytes=es*n*n; char*h=calloc(1,bytes);
  cl_mem A=clCreateBuffer(ctx,CL_MEM_READ_WRITE|CL_MEM_COPY_HOST_PTR,bytes,h,&e),B=clCreateBuffer(ctx,CL_MEM_READ_WRITE|CL_MEM_COPY_HOST_PTR,bytes,h,&e),C=clCreateBuffer(ctx,CL_MEM_READ_WRITE|CL_MEM_COPY_HOST_PTR,bytes,h,&e);
  double ret=0,tot=0;
  for(int i=0;i<N;i++){cl_event ev=NULL; double a=now(); clhgemm_status_t st= dbl?
    clhgemm_dgemm_cl(CLHGEMM_COL_MAJOR,CLHGEMM_NO_TRANS,CLHGEMM_NO_TRANS,n,n,n,1.0,A,0,n,B,0,n,beta,C,0,n,q,&ev):
    clhgemm_sgemm_cl(CLHGEMM_COL_MAJOR,CLHGEMM_NO_TRANS,CLHGEMM_NO_TRANS,n,n,n,1.0f,A,0,n,B,0,n,(float)beta,C,0,n,q,&ev);
    double b=now(); if(st){printf("status %d\n",st);return 1;} clWaitForEvents(1,&ev); double c=now(); clReleaseEvent(ev);
    if(i>=N/10){ret+=b-a; tot+=c-a;}}
  int m=N-N/10; fprintf(stderr,"one %cgemm_cl %d beta %g: mean call returns %.1f us, call+wait %.1f us over %d\n",dbl?'d':'s',n,beta,ret/m,tot/m,m);
  return 0;
}
