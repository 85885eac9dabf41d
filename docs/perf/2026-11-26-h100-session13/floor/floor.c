/* launch floor: an empty kernel enqueue+wait, and clhgemm_?gemm_cl at small sizes: the time to
 * return from the call (host work) and to the end of the wait, median of 300 */
#define CL_TARGET_OPENCL_VERSION 300
#define _POSIX_C_SOURCE 200809L
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "clhgemm.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec*1e-3;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
static double med(double*v,int n){qsort(v,n,sizeof*v,cmp);return v[n/2];}
#define R 300
int main(void){
  cl_platform_id pf[8]; cl_uint np; clGetPlatformIDs(8,pf,&np);
  cl_device_id dev=NULL; for(cl_uint i=0;i<np&&!dev;i++) if(clGetDeviceIDs(pf[i],getenv("FLOOR_ANY")?CL_DEVICE_TYPE_ALL:CL_DEVICE_TYPE_GPU,1,&dev,NULL)!=CL_SUCCESS) dev=NULL;
  if(!dev){printf("no GPU\n");return 1;}
  cl_int e; cl_context ctx=clCreateContext(NULL,1,&dev,NULL,NULL,&e);
  cl_command_queue q=clCreateCommandQueueWithProperties(ctx,dev,NULL,&e);
  const char*src="__kernel void k(__global float*x){ if(get_global_id(0)==1<<30) x[0]=1; }";
  cl_program p=clCreateProgramWithSource(ctx,1,&src,NULL,&e); clBuildProgram(p,1,&dev,"",NULL,NULL);
  cl_kernel k=clCreateKernel(p,"k",&e); cl_mem xb=clCreateBuffer(ctx,CL_MEM_READ_WRITE,64,NULL,&e);
  clSetKernelArg(k,0,sizeof xb,&xb);
  double t1[R],t2[R]; size_t g=128;
  for(int i=0;i<R;i++){cl_event ev; double a=now(); clEnqueueNDRangeKernel(q,k,1,NULL,&g,NULL,0,NULL,&ev); double b=now(); clWaitForEvents(1,&ev); double c=now(); clReleaseEvent(ev); t1[i]=b-a; t2[i]=c-a;}
  printf("empty kernel: enqueue %.1f us, enqueue+wait %.1f us\n",med(t1,R),med(t2,R));
  for(int i=0;i<R;i++){double a=now(); clEnqueueNDRangeKernel(q,k,1,NULL,&g,NULL,0,NULL,NULL); clFinish(q); t2[i]=now()-a;}
  printf("empty kernel: enqueue+clFinish %.1f us\n",med(t2,R));
  for(int dbl=0;dbl<2;dbl++) for(int n=256;n<=1024;n*=2){
    size_t es=dbl?8:4, bytes=es*n*n; char*h=malloc(bytes); for(size_t i=0;i<bytes;i++) h[i]=(char)(i*7%13);
    cl_mem A=clCreateBuffer(ctx,CL_MEM_READ_WRITE|CL_MEM_COPY_HOST_PTR,bytes,h,&e),B=clCreateBuffer(ctx,CL_MEM_READ_WRITE|CL_MEM_COPY_HOST_PTR,bytes,h,&e),C=clCreateBuffer(ctx,CL_MEM_READ_WRITE|CL_MEM_COPY_HOST_PTR,bytes,h,&e);
    if(dbl) for(int i=0;i<h[0]*0+1;i++){}
    for(int beta=0;beta<2;beta++){
      for(int i=0;i<R+20;i++){cl_event ev=NULL; double a=now(); clhgemm_status_t st= dbl?
        clhgemm_dgemm_cl(CLHGEMM_COL_MAJOR,CLHGEMM_NO_TRANS,CLHGEMM_NO_TRANS,n,n,n,1.0,A,0,n,B,0,n,beta?0.5:0.0,C,0,n,q,&ev):
        clhgemm_sgemm_cl(CLHGEMM_COL_MAJOR,CLHGEMM_NO_TRANS,CLHGEMM_NO_TRANS,n,n,n,1.0f,A,0,n,B,0,n,beta?0.5f:0.0f,C,0,n,q,&ev);
        double b=now(); if(st){printf("status %d\n",st);return 1;} clWaitForEvents(1,&ev); double c=now(); clReleaseEvent(ev);
        if(i>=20){t1[i-20]=b-a; t2[i-20]=c-a;}}
      printf("%cgemm_cl %d^3 beta %d: call returns %.1f us, call+wait %.1f us\n",dbl?'d':'s',n,beta?1:0,med(t1,R),med(t2,R));
    }
    clReleaseMemObject(A);clReleaseMemObject(B);clReleaseMemObject(C);free(h);
  }
  return 0;
}
