# shellcheck shell=bash
# Headless browsers for the console's browser tests (Tests/EndToEndTests/Browser).
#
# Source this file from bash (after scripts/lib/postgres.sh, for sk_apt_install); it defines:
#   sk_ensure_browser_installed   find Debian's chromium and chromedriver, and firefox-esr (install `chromium`,
#                                 `chromium-driver` and `firefox-esr` when missing); exports SHOPKEEPER_CHROMIUM,
#                                 SHOPKEEPER_CHROMEDRIVER and SHOPKEEPER_FIREFOX

sk_ensure_browser_installed() {
    local chromium driver
    chromium=${SHOPKEEPER_CHROMIUM:-$(command -v chromium 2>/dev/null || true)}
    driver=${SHOPKEEPER_CHROMEDRIVER:-$(command -v chromedriver 2>/dev/null || true)}
    if [ -z "$chromium" ] || [ -z "$driver" ]; then
        printf '%s\n' "[browser] chromium or chromedriver not found; installing Debian's chromium and chromium-driver" >&2
        sk_apt_install chromium chromium-driver fonts-dejavu-core || {
            printf '%s\n' "[browser] could not install chromium" >&2
            return 1
        }
        chromium=$(command -v chromium)
        driver=$(command -v chromedriver)
    fi
    local firefox
    firefox=${SHOPKEEPER_FIREFOX:-$(command -v firefox-esr 2>/dev/null || true)}
    if [ -z "$firefox" ]; then
        printf '%s\n' "[browser] firefox-esr not found; installing Debian's firefox-esr" >&2
        sk_apt_install firefox-esr || {
            printf '%s\n' "[browser] could not install firefox-esr" >&2
            return 1
        }
        firefox=$(command -v firefox-esr)
    fi
    export SHOPKEEPER_CHROMIUM="$chromium" SHOPKEEPER_CHROMEDRIVER="$driver" SHOPKEEPER_FIREFOX="$firefox"
}
