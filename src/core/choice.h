/*
 * choice.h -- which kernel configuration and how many k slices a device GEMM call runs
 * (choice.c owns it): the shape class's configuration for a plain GEMM, for the level-3
 * routines' structured calls the class's or the main one by how their tiles fill the waves.
 * core/gemm.c asks it once per call; which operands the chosen kernel reads in place is
 * core/direct.c's decision.
 */
#ifndef CHG_CHOICE_H
#define CHG_CHOICE_H

#include "core/gemm_args.h"
#include "device/device.h"
#include "tuning/tuning.h"

/* The kernel parameters of a device GEMM call (*gp) and its k slices (the return value): forced
 * ones (force != NULL, chg_gemm_enqueue_with), else for a plain GEMM its shape class's
 * configuration (tuning.h chg_tuned_gemm_shape) and split. The level-3 routines (a structured
 * operand or C, SYR2K's swapped sum) are never split and take their class's configuration only
 * where its tiles fill the device's work-group slots through their waves by CHG_L3_CLASS_FILL
 * more than the main parameters' do (or where CLHGEMM_SHAPE_CLASS forces the class), else the
 * main parameters, which they took before the classes: on the H100 (2026-11-27) SYMM, SYRK,
 * SYR2K, TRMM and TRSM at n = 1024 ran 1.35-2.6x faster on the small class (the main tiles
 * filled a quarter of the SMs), FP64 SYMM / TRMM 2048 1.38x / 1.13x and DTRSM 4096 1.13x on
 * medium (its leaves, 512 x 4096, on 88 main tiles), while where both fill the waves alike the
 * main tiles won: SSYMM 2048 / 4096 and STRMM 4096 lost 4-7% on medium, DSYRK 2048 9% (its
 * triangle's 96 main tiles fill 73% of one wave, medium's 272 in two waves 52%). They classify
 * without large's reach into medium's outputs, which large wins by its tail split
 * (kernels/shape.h). *wgs: the configuration's measured work-groups per compute unit (0:
 * unknown; forced ones), for the tail split. */
int chg_gemm_call_params(const chg_gemm_args_t *a, const chg_device_t *dev,
                         const chg_gemm_choice_t *force, chg_gemm_params_t *gp, int *wgs);

#endif
