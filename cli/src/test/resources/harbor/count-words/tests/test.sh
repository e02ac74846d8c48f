#!/bin/bash

# This script runs from the working directory and writes the reward.
if pytest /tests/test_outputs.py -rA; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
