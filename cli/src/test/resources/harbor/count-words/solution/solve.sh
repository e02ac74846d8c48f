#!/bin/bash

wc -w < /app/words.txt | tr -d ' ' > /app/count.txt
