#!/bin/sh
# Usage: collect-ffmpeg.sh FFMPEG OUT RELEASE
# Copies the dynamically linked FFMPEG, every shared library it loads and its loader into OUT, with OUT/bin/ffmpeg
# running it through that loader, so the copy needs nothing from the system it runs on. Fails unless FFMPEG is the
# release RELEASE (e.g. 7.1) and unless the copy, run with an empty environment, encodes a test clip with libx264.
set -eu
src=$1 out=$2 release=$3
first=$("$src" -version | head -n 1)
case "$first" in
  "ffmpeg version $release."* | "ffmpeg version $release-"*) ;;
  *) echo "collect-ffmpeg: $src is not release $release: $first" >&2; exit 1 ;;
esac
mkdir -p "$out/bin" "$out/lib"
cp -L "$src" "$out/lib/ffmpeg"
ldd "$src" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | while read -r lib; do
  cp -L "$lib" "$out/lib/"
done
loader=$(ldd "$src" | awk '$1 ~ /ld-linux/ { print $1 }')
cp -L "$loader" "$out/lib/ld-linux.so"
cat > "$out/bin/ffmpeg" <<WRAPPER
#!/bin/sh
exec "$out/lib/ld-linux.so" --library-path "$out/lib" "$out/lib/ffmpeg" "\$@"
WRAPPER
chmod 755 "$out/bin/ffmpeg"
env -i "$out/bin/ffmpeg" -hide_banner -loglevel error -f lavfi -i testsrc=size=128x128:duration=1 -c:v libx264 -f null -
echo "collect-ffmpeg: $first -> $out ($(du -sh "$out" | cut -f1))"
