% test_lapack_octave.m -- GNU Octave as a real client of clhgemm's liblapack.so.3 (the LAPACK
% drop-in) beside its libblas.so.3: Octave links liblapack.so.3 and libblas.so.3 (Debian's
% alternatives); run with LD_LIBRARY_PATH naming the drop-ins' folders, Octave must load both of
% ours (checked in /proc/self/maps). chol (dpotrf, spotrf), lu (dgetrf), qr (dgeqrf, dorgqr) and
% the backslash solve (dgetrf and dgetrs on a general matrix) in double and single are checked by
% their residuals, formed by broadcasting (no BLAS); the tolerance scales with n; last, one product
% through the BLAS drop-in. The driver
% (tests/run_dropin_client.sh) checks the CLHGEMM_LAPACK_STATS and CLHGEMM_BLAS_STATS lines.
1;
function r = noblas_mul(A, B)
  % A*B as a sum of broadcast outer products in double (elementwise: no BLAS)
  A = double(A); B = double(B);
  r = zeros(rows(A), columns(B));
  for l = 1:columns(A)
    r += A(:, l) .* B(l, :);
  end
end
function f = check(name, err, scale, n, eps_)
  rel = double(err) / double(scale);
  tol = 8 * (n + 2) * eps_;
  ok = isfinite(rel) && rel <= tol;
  if ok, tag = 'ok'; else, tag = 'FAIL'; end
  printf('%-4s %-40s err %.3g (tol %.3g)\n', tag, name, rel, tol);
  f = !ok;
end
maps = fileread('/proc/self/maps');
lines = strsplit(maps, "\n");
for lib = {'lapack', 'blas'}
  if strcmp(lib{1}, 'lapack'), want = getenv('CHG_EXPECT_LAPACK_DIR'); else, want = getenv('CHG_EXPECT_BLAS_DIR'); end
  libs = unique(regexprep(lines(!cellfun(@isempty, strfind(lines, ['/lib' lib{1} '.so']))), '.* ', ''));
  printf('lib%s loaded: %s\n', lib{1}, strjoin(libs, ' '));
  found = isempty(want);
  real_want = [canonicalize_file_name(want) '/'];
  for i = 1:numel(libs)
    p = canonicalize_file_name(libs{i});
    found = found || strncmp(p, real_want, numel(real_want));
  end
  if !found
    error('FAIL: the drop-in is not the lib%s.so.3 Octave loaded', lib{1});
  end
end
rand('state', 11);
fails = 0;
for n = [7 65 300]
  for cls = {'double', 'single'}
    e = eps(cls{1});
    A = cast(rand(n, n) - 0.5 + n * eye(n), cls{1});
    B = cast(rand(n, max(1, floor(n / 8))) - 0.5, cls{1});
    nA = max(abs(double(A(:))));
    X = A \ B;
    fails += check(sprintf('A\\B %s, n = %d', cls{1}, n), max(max(abs(noblas_mul(A, X) - double(B)))), ...
                   nA * max(abs(double(X(:)))) * n, n, e);
    P = cast(noblas_mul(A', A), cls{1});
    R = chol(P);
    fails += check(sprintf('chol(P) %s, n = %d', cls{1}, n), max(max(abs(noblas_mul(R', R) - double(P)))), ...
                   max(abs(double(P(:)))), n, e);
    [L, U, Pm] = lu(A);
    fails += check(sprintf('lu(A) %s, n = %d', cls{1}, n), ...
                   max(max(abs(noblas_mul(L, U) - noblas_mul(Pm, A)))), nA * n, n, e);
    T = cast(rand(n + floor(n / 3), n) - 0.5, cls{1});
    [Q, Rq] = qr(T, 0);
    fails += check(sprintf('qr(T, 0) %s, %d x %d', cls{1}, rows(T), n), ...
                   max(max(abs(noblas_mul(Q, Rq) - double(T)))) + max(max(abs(noblas_mul(Q', Q) - eye(n)))), ...
                   max(1, max(abs(double(T(:))))) * n, n, e);
  end
end
% and one product through the BLAS drop-in beside it (dgemm), for its stats line
A = rand(150, 120) - 0.5; B = rand(120, 130) - 0.5;
fails += check('A*B through libblas.so.3', max(max(abs(A * B - noblas_mul(A, B)))), 1, 120, eps('double'));
printf('%d check(s) failed\n', fails);
if fails
  error('FAIL: %d check(s) failed', fails);  % octave-cli then exits 1
end
