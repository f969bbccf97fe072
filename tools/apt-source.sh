# Sourced by the tools/fetch-*.sh scripts (bash): makes `apt-get source
# PACKAGE` possible, as root. Debian 12 writes only "Types: deb" in
# debian.sources; this adds its deb-src twin once. Needs say() and die().
enable_deb_src() {
  local package=$1
  [[ $(id -u) == 0 ]] || die "needs root once (deb-src entry, apt-get source); run it as root"
  apt-get source --print-uris "$package" >/dev/null 2>&1 && return 0
  local deb822=/etc/apt/sources.list.d/debian.sources
  local src_list=/etc/apt/sources.list.d/debian-src.sources
  [[ -f $deb822 ]] || die "no $deb822 to derive a deb-src entry from; add one for $package by hand"
  say "adding $src_list (deb-src twin of $deb822)"
  sed 's/^Types: deb$/Types: deb-src/' "$deb822" >"$src_list"
  apt-get update -qq || die "apt-get update failed after adding $src_list"
}
