/* per-call times of identical host DGEMMs: which calls are slow, and does an OpenBLAS call
 * before them matter (its threads spin after returning) */
#define _POSIX_C_SOURCE 200809L
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "clhgemm.h"
extern int blas_thread_shutdown_(void);
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec*1e-6;}
int main(int argc,char**argv){
  int n=atoi(argv[1]); double beta=atof(argv[2]); int calls=atoi(argv[3]); int ob_every=atoi(argv[4]); int shut=argc>5?atoi(argv[5]):0; int sleep_ms=argc>6?atoi(argv[6]):0;
  size_t N=(size_t)n*n; double *A=malloc(N*8),*B=malloc(N*8),*C=malloc(N*8);
  srand(1); for(size_t i=0;i<N;i++){A[i]=rand()/(double)RAND_MAX-.5;B[i]=rand()/(double)RAND_MAX-.5;C[i]=rand()/(double)RAND_MAX-.5;}
  clhgemm_handle_t h; if(clhgemm_create(&h,NULL)){puts("create failed");return 1;}
  double fl=2.0*n*n*(double)n;
  for(int i=0;i<calls;i++){
    const char*tag="";
    if(ob_every>0 && i%ob_every==0){cblas_dgemm(CblasColMajor,CblasNoTrans,CblasNoTrans,n,n,n,1,A,n,B,n,beta,C,n);tag=" after-OB"; if(shut) blas_thread_shutdown_(); if(sleep_ms){struct timespec z={sleep_ms/1000,(sleep_ms%1000)*1000000L};nanosleep(&z,NULL);}}
    double t=now();
    int e=clhgemm_dgemm(h,CLHGEMM_COL_MAJOR,CLHGEMM_NO_TRANS,CLHGEMM_NO_TRANS,n,n,n,1,A,n,B,n,beta,C,n);
    t=now()-t;
    clhgemm_call_info_t inf; clhgemm_last_call_info(h,&inf);
    printf("n %d beta %g call %2d: %8.3f ms %8.1f GF/s st %d cpu_frac %.2f tile %dx%dx%d tiles %lld amode %d setup %.3f pred %.3f%s\n",n,beta,i,t,fl/t*1e-6,e,inf.cpu_fraction,inf.tile_m,inf.tile_n,inf.tile_k,inf.tiles,inf.a_mode,inf.setup_seconds*1e3,inf.predicted_seconds*1e3,tag);
  }
  clhgemm_destroy(h); return 0;}
