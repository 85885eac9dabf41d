#!/bin/sh
# test_install_example.sh -- CTest `install_example`: proves the installed package, not the build
# tree. Installs the build into a scratch prefix, configures examples/ standalone against it
# (find_package(clhgemm) through CMAKE_PREFIX_PATH), builds and runs the sgemm_cl example, and
# compiles the same example once more with the flags of `pkg-config clhgemm`.
# Exit status: 0 pass, 77 skip (the example found no OpenCL device), anything else fails.
#
#   test_install_example.sh <build dir> <source dir> <scratch dir> <cmake> <config> <cc> [sanitize]
set -eu

build=$1
src=$2
work=$3
cmake=$4
config=${5:-Release}
cc=${6:-cc}
sanitize=${7:-}
[ -n "$config" ] || config=Release

prefix=$work/prefix
exbuild=$work/examples-build

rm -rf "$work"
mkdir -p "$work"

echo "== install $build into $prefix"
"$cmake" --install "$build" --prefix "$prefix" --config "$config"

# The install must hold what a user needs, and nothing from the build tree.
for f in include/clhgemm.h include/clhgemm_version.h; do
    [ -f "$prefix/$f" ] || { echo "missing after install: $f"; exit 1; }
done
libdir=$(dirname "$(find "$prefix" -name 'libclhgemm.so' | head -n 1)")
[ -n "$libdir" ] && [ -e "$libdir/libclhgemm.so" ] || { echo "libclhgemm.so not installed"; exit 1; }
for f in "$libdir/cmake/clhgemm/clhgemmConfig.cmake" "$libdir/cmake/clhgemm/clhgemmConfigVersion.cmake" \
         "$libdir/pkgconfig/clhgemm.pc"; do
    [ -f "$f" ] || { echo "missing after install: $f"; exit 1; }
done
ls "$libdir"/libclhgemm.so.* >/dev/null 2>&1 || { echo "no versioned libclhgemm.so.* (SOVERSION)"; exit 1; }

# The tools, and the shipped tuning database where the installed library and tools find it
# (relative to their own directory, so the install may be moved: this prefix is not the one
# configured).
for t in clhgemm-info clhgemm-tune; do
    [ -x "$prefix/bin/$t" ] || { echo "missing after install: bin/$t"; exit 1; }
done
if ls "$src"/tuning/*.json >/dev/null 2>&1; then
    for f in "$src"/tuning/*.json; do
        [ -f "$prefix/share/clhgemm/tuning/$(basename "$f")" ] ||
            { echo "missing after install: share/clhgemm/tuning/$(basename "$f")"; exit 1; }
    done
    want=$(cd "$prefix/share/clhgemm/tuning" && pwd -P)
    info=$(CLHGEMM_TUNING_DIR=off "$prefix/bin/clhgemm-info" 2>&1 || true)
    echo "$info" | grep -q "^  shipped  $want\$" ||
        { echo "installed clhgemm-info does not use the installed database $want:"; echo "$info"; exit 1; }
    echo "installed clhgemm-info reads the shipped database in $want"
fi

sanflags=
if [ -n "$sanitize" ]; then
    sanflags="-fsanitize=$sanitize -fno-omit-frame-pointer"
fi

echo "== configure examples/ standalone against $prefix"
"$cmake" -S "$src/examples" -B "$exbuild" \
    -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_BUILD_TYPE="$config" \
    -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_C_FLAGS="$sanflags" \
    -DCMAKE_EXE_LINKER_FLAGS="$sanflags"
# It must have used the installed package, not a build tree or a system copy.
found=$(sed -n 's/^clhgemm_DIR:PATH=//p' "$exbuild/CMakeCache.txt")
case "$found" in
    "$prefix"/*) echo "clhgemm_DIR=$found" ;;
    *) echo "find_package(clhgemm) found '$found', not the package in $prefix"; exit 1 ;;
esac

echo "== build examples/"
"$cmake" --build "$exbuild" --config "$config"
exe=$(find "$exbuild" -type f -name sgemm_cl -perm -u+x | head -n 1)
[ -n "$exe" ] || { echo "sgemm_cl was not built"; exit 1; }

if command -v pkg-config >/dev/null 2>&1; then
    echo "== pkg-config clhgemm"
    PKG_CONFIG_PATH="$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
    export PKG_CONFIG_PATH
    pkg-config --modversion clhgemm
    pcflags=$(pkg-config --cflags --libs clhgemm)
    echo "pkg-config --cflags --libs clhgemm: $pcflags"
    # The .pc file is relocatable (prefix relative to ${pcfiledir}); it must lead into $prefix.
    pcinc=$(cd "$(pkg-config --variable=includedir clhgemm)" && pwd -P)
    pclib=$(cd "$(pkg-config --variable=libdir clhgemm)" && pwd -P)
    [ "$pcinc" = "$(cd "$prefix/include" && pwd -P)" ] || { echo "clhgemm.pc includedir $pcinc is not in $prefix"; exit 1; }
    [ "$pclib" = "$(cd "$libdir" && pwd -P)" ] || { echo "clhgemm.pc libdir $pclib is not $libdir"; exit 1; }
    # shellcheck disable=SC2086 # the flags are meant to split
    "$cc" -std=c11 $sanflags $(pkg-config --cflags clhgemm) "$src/examples/sgemm_cl.c" \
        -o "$work/sgemm_cl_pc" $(pkg-config --libs clhgemm) -lm
    echo "compiled and linked examples/sgemm_cl.c with pkg-config's flags"
else
    echo "== pkg-config not installed: the clhgemm.pc check is left out"
fi

echo "== run $exe"
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
if command -v ldd >/dev/null 2>&1; then
    ldd "$exe" | grep clhgemm || true
fi
set +e
"$exe"
rc=$?
set -e
echo "sgemm_cl exited with $rc"
exit $rc
