#!/bin/sh
# A loop of $1 shell iterations, then 10 ms asleep, forever: a partial load on the CPU it is pinned to.
while :; do i=0; while [ $i -lt "$1" ]; do i=$((i+1)); done; sleep 0.01; done
