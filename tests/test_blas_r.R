# test_blas_r.R -- R as a real client of clhgemm's libblas.so.3 (the drop-in): R links libblas.so.3
# (Debian's alternative); run with LD_LIBRARY_PATH naming the drop-in's folder, R must load ours
# (checked in /proc/self/maps and in sessionInfo()). Products through the BLAS (%*%, crossprod,
# tcrossprod: dgemm, dsyrk) are compared with R's own loops (options(matprod = "internal"), no
# BLAS); solve() and chol() run LAPACK (dgetrf/dgetrs, dpotrf: dtrsm, dsyrk, dgemm underneath)
# and are checked by their residuals, computed without BLAS. Tolerance scales with k. The test's
# driver (tests/run_dropin_client.sh) checks the CLHGEMM_BLAS_STATS line at exit.
want <- Sys.getenv("CHG_EXPECT_BLAS_DIR")
maps <- readLines("/proc/self/maps")
libs <- unique(sub(".* ", "", grep("libblas\\.so", maps, value = TRUE)))
cat("libblas loaded:", libs, "\n")
cat("sessionInfo BLAS:", sessionInfo()$BLAS, "\n")
if (!nzchar(want) || !any(startsWith(normalizePath(libs), normalizePath(want)))) {
  cat("FAIL: the drop-in is not the libblas.so.3 R loaded\n")
  quit(status = 1)
}
set.seed(7)
fails <- 0
check <- function(name, x, ref, k) {
  err <- max(abs(x - ref)) / (max(abs(ref)) + 1)
  tol <- 8 * (k + 2) * .Machine$double.eps
  ok <- is.finite(err) && err <= tol
  cat(sprintf("%-4s %-34s err %.3g (tol %.3g)\n", if (ok) "ok" else "FAIL", name, err, tol))
  if (!ok) fails <<- fails + 1
}
internal <- function(expr) { old <- options(matprod = "internal"); on.exit(options(old)); expr }
for (n in c(7, 65, 300)) {
  k <- n + 3
  A <- matrix(runif(n * k) - 0.5, n, k)
  B <- matrix(runif(k * (n + 1)) - 0.5, k, n + 1)
  ref <- internal(A %*% B); refc <- internal(crossprod(A)); reft <- internal(tcrossprod(A))
  options(matprod = "blas")
  check(sprintf("A %%*%% B, %d x %d x %d", n, n + 1, k), A %*% B, ref, k)
  check(sprintf("crossprod(A), %d x %d", k, n), crossprod(A), refc, n)
  check(sprintf("tcrossprod(A), %d x %d", n, k), tcrossprod(A), reft, k)
  S <- A[, 1:n] + diag(n) * n  # diagonally dominant
  X <- solve(S, B[1:n, ])      # LAPACK dgesv
  check(sprintf("solve(S, B) residual, n = %d", n), internal(S %*% X), B[1:n, ], n)
  P <- internal(crossprod(S))
  L <- chol(P)                 # LAPACK dpotrf
  check(sprintf("chol(P) residual, n = %d", n), internal(crossprod(L)), P, n)
}
cat(sprintf("%d check(s) failed\n", fails))
quit(status = if (fails) 1 else 0)
