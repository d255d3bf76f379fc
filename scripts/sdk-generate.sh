#!/usr/bin/env bash
# Rebuilds the four SDKs from generated/openapi.yaml. Python, PHP and Ruby come from the pinned
# openapi-generator; Node.js from openapi-typescript (types) under a small hand-written client.
# Hand-written files are listed in each SDK's .openapi-generator-ignore and are never touched;
# sdk/templates/ holds the few generator templates Sendline overrides (each marked 'Sendline:').
# Ruby names the webhook endpoint model WebhookEndpoint (as Stripe does): Sendline::Webhook verifies deliveries.
# With an argument, writes into that folder instead of sdk/ (the staleness test compares).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-sdk}"
GENERATOR_VERSION=7.17.0
JAR=".cache/openapi-generator/openapi-generator-cli-$GENERATOR_VERSION.jar"
[ -f "$JAR" ] || bash scripts/ensure-toolchains.sh
SPEC=generated/openapi.yaml
COMMON=(--remove-operation-id-prefix --global-property apiTests=false,modelTests=false,apiDocs=false,modelDocs=false --git-user-id sendline --git-repo-id sendline)

generate() {
  local language=$1; shift
  mkdir -p "$OUT/$language"
  [ "$OUT" = sdk ] || cp "sdk/$language/.openapi-generator-ignore" "$OUT/$language/"
  java -jar "$JAR" generate -i "$SPEC" -g "$language" -o "$OUT/$language" "${COMMON[@]}" "$@" >/dev/null
}

generate python -t sdk/templates/python --package-name sendline --additional-properties=projectName=sendline,packageVersion=0.1.0,packageUrl=https://github.com/sendline/sendline,httpUserAgent=sendline-python/0.1.0
generate php -t sdk/templates/php --additional-properties=invokerPackage=Sendline,composerPackageName=sendline/sendline,artifactVersion=0.1.0,artifactUrl=https://github.com/sendline/sendline,licenseName=MIT,developerOrganization=Sendline,developerOrganizationUrl=https://github.com/sendline/sendline,httpUserAgent=sendline-php/0.1.0
generate ruby -t sdk/templates/ruby --model-name-mappings Webhook=WebhookEndpoint --additional-properties=gemName=sendline,moduleName=Sendline,gemVersion=0.1.0,gemHomepage=https://github.com/sendline/sendline,gemSummary="Sendline API client",gemAuthor=Sendline,gemLicense=MIT

mkdir -p "$OUT/node/src"
scripts/node.sh node_modules/.bin/openapi-typescript "$SPEC" --default-non-nullable false -o "$OUT/node/src/schema.d.ts" >/dev/null 2>&1
scripts/node.sh sdk/node/scripts/operations.ts > "$OUT/node/src/operations.ts"
