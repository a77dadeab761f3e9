#!/usr/bin/env bash
# Tests/CLI/completion_check.sh SIMCTL: the completion scripts 'simctl completion bash|zsh|fish' prints, sourced in
# their own shells, complete for real: commands, options, an option's values, subcommands (docs/cli.md, "Shell
# completion"). Installs bash-completion, zsh and fish with apt when they are missing (CI runs as root on Debian).
set -euo pipefail
SIMCTL=${1:?usage: completion_check.sh SIMCTL}
SIMCTL=$(cd "$(dirname "$SIMCTL")" && pwd)/$(basename "$SIMCTL")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

missing=()
[ -f /usr/share/bash-completion/bash_completion ] || missing+=(bash-completion)
command -v zsh >/dev/null || missing+=(zsh)
command -v fish >/dev/null || missing+=(fish)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        echo "completion_check: missing ${missing[*]} and cannot install them (not root with apt)" >&2
        exit 1
    fi
fi

"$SIMCTL" completion bash >"$work/simctl.bash"
"$SIMCTL" completion zsh >"$work/_simctl"
"$SIMCTL" completion fish >"$work/simctl.fish"

# expect SHELL WHAT GOT WANTED...: every wanted word is among the completions got.
expect() {
    local shell=$1 what=$2 got=$3
    shift 3
    for want in "$@"; do
        if ! grep -qxF -- "$want" <<<"$got"; then
            echo "FAIL $shell: '$what' does not offer '$want'; got: $(tr '\n' ' ' <<<"$got")" >&2
            failures=$((failures + 1))
            return
        fi
    done
    echo "ok   $shell: '$what' -> $*"
}
# refuse SHELL WHAT GOT UNWANTED: the word is not offered.
refuse() {
    if grep -qxF -- "$4" <<<"$3"; then
        echo "FAIL $1: '$2' offers '$4'" >&2
        failures=$((failures + 1))
    else
        echo "ok   $1: '$2' does not offer $4"
    fi
}

# bash: the function the script registers, called as readline would (COMP_WORDS, COMP_CWORD).
bash_complete() {
    timeout -s KILL 30 bash --norc --noprofile -c '
        source /usr/share/bash-completion/bash_completion 2>/dev/null || true
        source "$1"; shift
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
        $(complete -p simctl | sed "s/.*-F \([^ ]*\) .*/\1/") simctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf "%s\n" "${COMPREPLY[@]}"' _ "$work/simctl.bash" "$@"
}
expect bash "simctl ch" "$(bash_complete simctl ch)" check
refuse bash "simctl ch" "$(bash_complete simctl ch)" run
expect bash "simctl run --for" "$(bash_complete simctl run --for)" --format
expect bash "simctl run --format " "$(bash_complete simctl run --format '')" timeline jsonl decoded svg
expect bash "simctl certs " "$(bash_complete simctl certs '')" export negative-fixtures tls
expect bash "simctl certs tls --na" "$(bash_complete simctl certs tls --na)" --name
expect bash "simctl serve --environment S" "$(bash_complete simctl serve --environment S)" Sandbox
(cd "$work" && touch scenario-a.yaml && mkdir -p folder)
expect bash "simctl run scen" "$(cd "$work" && bash_complete simctl run scen)" scenario-a.yaml
expect bash "simctl help po" "$(bash_complete simctl help po)" population

# fish: its own completion engine, `complete -C` on the line typed so far.
fish_complete() { timeout -s KILL 30 fish --no-config -c "source '$work/simctl.fish'; complete -C '$1'" | cut -f1; }
expect fish "simctl ch" "$(fish_complete 'simctl ch')" check
expect fish "simctl run --for" "$(fish_complete 'simctl run --for')" --format
expect fish "simctl run --format " "$(fish_complete 'simctl run --format ')" timeline jsonl decoded svg
expect fish "simctl certs " "$(fish_complete 'simctl certs ')" export negative-fixtures tls
expect fish "simctl check --no-" "$(fish_complete 'simctl check --no-')" --no-duplicates --no-retries --no-shrink

# zsh: an interactive zsh in a pseudo-terminal (zpty) with compinit and the script on $fpath; TAB is pressed and
# the completions are listed one per line.
zsh_complete() {
    ZDOTDIR=$work timeout -s KILL 60 zsh -f -c '
        zmodload zsh/zpty
        zpty -b z "zsh -f -i"
        zpty -w z "PS1=\"\"; fpath=($1 \$fpath); autoload -U compinit; compinit -u -D"
        zpty -w z "zstyle \":completion:*\" list-separator \"\"; setopt nolistbeep; LISTMAX=1000"
        zpty -w z "zstyle \":completion:*\" format \"\"; zle_highlight=(none)"
        zpty -w z "zmodload zsh/complist; compdef _simctl simctl; print -- START"
        zpty -r z line "*START*"
        zpty -n -w z "$2"$'\''\t'\''
        out=""
        # Read what the completion draws, until it has been quiet for a second (at most 10 s under load).
        quiet=0
        for i in {1..20}; do
            sleep 0.5
            if zpty -r -t z chunk; then
                out+=$chunk
                while zpty -r -t z chunk; do out+=$chunk; done
                quiet=0
            elif (( ${#out} > 0 && ++quiet >= 2 )); then
                break
            fi
        done
        print -r -- "$out"
        zpty -d z' _ "$work" "$1" 2>/dev/null |
        tr -d '\r' | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/simctl /\nsimctl /g' | tr -s ' \t' '\n\n' | sed '/^$/d'
}
# A sole match is inserted on the line ("simctl check "); several are listed.
expect zsh "simctl ch" "$(zsh_complete 'simctl ch')" check
expect zsh "simctl run --for" "$(zsh_complete 'simctl run --for')" --format
expect zsh "simctl run --format " "$(zsh_complete 'simctl run --format ')" timeline jsonl decoded svg
expect zsh "simctl certs " "$(zsh_complete 'simctl certs ')" export negative-fixtures tls

if [ "$failures" -gt 0 ]; then
    echo "completion_check: $failures failures" >&2
    exit 1
fi
echo "completion_check: bash, zsh and fish complete simctl's commands, options and values"
