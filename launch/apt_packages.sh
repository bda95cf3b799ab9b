# Sourced by launch/setup.sh and launch/setup-engine.sh (not run on its own):
# InstallMissing TAG PACKAGE... installs the Debian packages that are not
# installed yet, non-interactively (sudo when not root), and says which.
InstallMissing() {
  local tag="$1"
  shift
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "$tag: installing ${missing[*]}"
    local sudo=""
    if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    echo "$tag: all Debian packages present"
  fi
}
