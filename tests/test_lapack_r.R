# test_lapack_r.R -- R as a real client of clhgemm's liblapack.so.3 (the LAPACK drop-in) beside its
# libblas.so.3: R's LAPACK module links liblapack.so.3 and R links libblas.so.3 (Debian's
# alternatives); run with R_LD_LIBRARY_PATH naming the drop-ins' folders, R must load both of ours
# (checked in /proc/self/maps). solve(A, B) and solve(A) (LAPACK dgesv), chol(P) (dpotrf) and
# determinant(A) (dgetrf) are checked by their residuals, computed without BLAS (options(matprod =
# "internal")); the tolerance scales with n. Last, one product through the BLAS drop-in. The driver (tests/run_dropin_client.sh) checks the
# CLHGEMM_LAPACK_STATS and CLHGEMM_BLAS_STATS lines at exit.
maps <- readLines("/proc/self/maps")
fails <- 0
for (lib in c("lapack", "blas")) {
  want <- Sys.getenv(if (lib == "lapack") "CHG_EXPECT_LAPACK_DIR" else "CHG_EXPECT_BLAS_DIR")
  libs <- unique(sub(".* ", "", grep(sprintf("/lib%s\\.so", lib), maps, value = TRUE)))
  cat(sprintf("lib%s loaded: %s\n", lib, paste(libs, collapse = " ")))
  if (nzchar(want) && !any(startsWith(normalizePath(libs), paste0(normalizePath(want), "/")))) {
    cat(sprintf("FAIL: the drop-in is not the lib%s.so.3 R loaded\n", lib))
    quit(status = 1)
  }
}
options(matprod = "internal")  # the residuals without BLAS
set.seed(11)
check <- function(name, err, scale, n) {
  tol <- 8 * (n + 2) * .Machine$double.eps
  rel <- err / scale
  ok <- is.finite(rel) && rel <= tol
  cat(sprintf("%-4s %-36s err %.3g (tol %.3g)\n", if (ok) "ok" else "FAIL", name, rel, tol))
  if (!ok) fails <<- fails + 1
}
for (n in c(7, 65, 300)) {
  A <- matrix(runif(n * n) - 0.5, n, n) + diag(n) * n  # diagonally dominant
  B <- matrix(runif(n * max(1, n %/% 8)) - 0.5, n)
  X <- solve(A, B)                                       # dgesv
  check(sprintf("solve(A, B), n = %d", n), max(abs(A %*% X - B)), max(abs(A)) * max(abs(X)) * n, n)
  Ai <- solve(A)                                         # dgesv on the identity
  check(sprintf("solve(A), n = %d", n), max(abs(A %*% Ai - diag(n))), max(abs(A)) * max(abs(Ai)) * n, n)
  P <- crossprod(A)
  L <- chol(P)                                           # dpotrf (upper)
  check(sprintf("chol(P), n = %d", n), max(abs(crossprod(L) - P)), max(abs(P)), n)
  d <- runif(n, 0.9, 1.1)                                # det of (unit lower) x (upper, diagonal d)
  Lo <- diag(n) + (matrix(runif(n * n, -0.1, 0.1), n) * lower.tri(diag(n)))
  Up <- diag(d) + (matrix(runif(n * n, -0.1, 0.1), n) * upper.tri(diag(n)))
  dt <- determinant(Lo %*% Up, logarithm = TRUE)         # dgetrf
  check(sprintf("determinant, n = %d", n), abs(as.numeric(dt$modulus) - sum(log(d))), 1, n)
}
# and one product through the BLAS drop-in beside it (dgemm), for its stats line
A <- matrix(runif(150 * 120) - 0.5, 150); B <- matrix(runif(120 * 130) - 0.5, 120)
ref <- A %*% B
options(matprod = "blas")
check("A %*% B through libblas.so.3", max(abs(A %*% B - ref)), max(abs(ref)) + 1, 120)
cat(sprintf("%d check(s) failed\n", fails))
quit(status = if (fails) 1 else 0)
