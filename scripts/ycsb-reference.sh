#!/usr/bin/env bash
# Regenerate tests/fixtures/ycsb/reference.txt: request sequences drawn by
# YCSB 0.17.0's own CoreWorkload (the real jar from Maven Central), which
# crates/core/src/datagen/ycsb.rs's test replays. Needs a JDK 17 (the fixture's "U" lines
# pin its ThreadLocalRandom) and Maven.
set -euo pipefail
cd "$(dirname "$0")/.."
JAR=${YCSB_JAR:-$HOME/.m2/repository/site/ycsb/core/0.17.0/core-0.17.0.jar}
[ -e "$JAR" ] || mvn -q dependency:get -Dartifact=site.ycsb:core:0.17.0 -Dtransitive=false
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
javac -cp "$JAR" -d "$TMP" tests/fixtures/ycsb/YcsbReference.java
# Its per-thread random seed is set by reflection (YCSB's generators cannot be seeded).
java --add-opens java.base/java.lang=ALL-UNNAMED -cp "$JAR:$TMP" YcsbReference > tests/fixtures/ycsb/reference.txt
echo "wrote tests/fixtures/ycsb/reference.txt ($(wc -l < tests/fixtures/ycsb/reference.txt) lines)"
