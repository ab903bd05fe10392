#!/bin/sh
# A minimal arena bot in plain POSIX shell (no Python, no Sparring): plays the first legal action.
# An act line ends with "legal":[a,b,...],"time_left_ms":...; the first element is what lies
# between the last "legal":[ and the next comma or bracket.
#   sparring arena ... 'cmd:sh examples/agents/first_bot.sh'
while IFS= read -r line; do
    case "$line" in
    *'"type":"start"'*) printf '{"ready":true,"name":"first_bot.sh"}\n' ;;
    *'"type":"act"'*)
        rest=${line##*\"legal\":[}
        printf '{"action":%s}\n' "${rest%%[],]*}"
        ;;
    esac
done
