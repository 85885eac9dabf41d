% test_blas_octave.m -- GNU Octave as a real client of clhgemm's libblas.so.3 (the drop-in): Octave
% links libblas.so.3 (Debian's alternative); run with LD_LIBRARY_PATH naming the drop-in's folder
% (and the reference LAPACK's, so that LAPACK's own BLAS calls come through it too), Octave must
% load ours (checked in /proc/self/maps). Products in double and single (dgemm, sgemm; A'*A:
% dsyrk) are compared with sums of outer products formed by broadcasting (no BLAS); the
% backslash solve (dgesv) and chol (dpotrf) are checked by their residuals, formed the same way.
% Tolerance scales with k. The driver (tests/run_dropin_client.sh) checks CLHGEMM_BLAS_STATS.
1;
function r = noblas_mul(A, B)
  % A*B as a sum of k broadcast outer products (elementwise: no BLAS)
  r = zeros(rows(A), columns(B), class(A));
  for l = 1:columns(A)
    r += A(:, l) .* B(l, :);
  end
end
function f = check(name, x, ref, k, eps_)
  err = max(abs(x(:) - ref(:))) / (max(abs(ref(:))) + 1);
  tol = 8 * (k + 2) * eps_;
  ok = isfinite(err) && err <= tol;
  if ok, tag = 'ok'; else, tag = 'FAIL'; end
  printf('%-4s %-36s err %.3g (tol %.3g)\n', tag, name, double(err), tol);
  f = !ok;
end
want = getenv('CHG_EXPECT_BLAS_DIR');
maps = fileread('/proc/self/maps');
lines = strsplit(maps, "\n");
libs = unique(regexprep(lines(!cellfun(@isempty, strfind(lines, 'libblas.so'))), '.* ', ''));
printf('libblas loaded: %s\n', strjoin(libs, ' '));
real_want = canonicalize_file_name(want);
found = false;
for i = 1:numel(libs)
  p = canonicalize_file_name(libs{i});
  found = found || (!isempty(real_want) && strncmp(p, real_want, numel(real_want)));
end
if !found
  error('FAIL: the drop-in is not the libblas.so.3 Octave loaded');
end
rand('state', 7);
fails = 0;
for n = [7 65 300]
  k = n + 3;
  A = rand(n, k) - 0.5; B = rand(k, n + 1) - 0.5;
  fails += check(sprintf('A*B double, %d x %d x %d', n, n + 1, k), A * B, noblas_mul(A, B), k, eps('double'));
  As = single(A); Bs = single(B);
  fails += check(sprintf('A*B single, %d x %d x %d', n, n + 1, k), As * Bs, noblas_mul(A, B), k, eps('single'));
  fails += check(sprintf("A'*A double, %d x %d", k, n), A' * A, noblas_mul(A', A), n, eps('double'));
  S = A(:, 1:n) + n * eye(n);
  X = S \ B(1:n, :);
  fails += check(sprintf('S\\B residual, n = %d', n), noblas_mul(S, X), B(1:n, :), n, eps('double'));
  P = noblas_mul(S', S);
  L = chol(P);
  fails += check(sprintf('chol(P) residual, n = %d', n), noblas_mul(L', L), P, n, eps('double'));
end
printf('%d check(s) failed\n', fails);
if fails
  error('FAIL: %d check(s) failed', fails);  % octave-cli then exits 1
end
