# SPDX-License-Identifier: Apache-2.0
# Validates the manifests the suite emits against Kubernetes' autoscaling/v2 OpenAPI and KEDA's
# ScaledObject CRD with tests/data/k8s-schemas/validate.py (Debian's python3-jsonschema and
# python3-yaml): every manifest of MANIFEST_EMIT valid, YAML_EMIT (the awkward strings) and
# EMIT_KEDA (the example, in its configurations) must be accepted; the deliberately invalid
# ones (MANIFEST_EMIT invalid, the samples) rejected with exit status 1.
set(validate "${PYTHON}" "${SCHEMAS}/validate.py")

function(expect_status want)
  execute_process(${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL want)
    message(FATAL_ERROR "expected exit ${want}, got ${rc}: ${ARGN}\n${out}${err}")
  endif()
  string(REGEX MATCHALL "\nOK |^OK " oks "${out}")
  list(LENGTH oks n)
  message(STATUS "exit ${rc}, ${n} OK: ${ARGN}")
endfunction()

expect_status(0 COMMAND "${MANIFEST_EMIT}" valid COMMAND ${validate} -)
expect_status(0 COMMAND "${YAML_EMIT}" manifests COMMAND ${validate} -)
if(EMIT_KEDA)
  expect_status(0 COMMAND "${EMIT_KEDA}" COMMAND ${validate} -)
  expect_status(0 COMMAND "${EMIT_KEDA}" --milli --engine sglang --deployment sglang-8b --max 64 COMMAND ${validate} -)
  expect_status(0 COMMAND "${EMIT_KEDA}" --min 0 --only keda COMMAND ${validate} -)
endif()
# Deliberately invalid: an HPA with minReplicas 0 is valid only behind HPAScaleToZero.
expect_status(1 COMMAND "${MANIFEST_EMIT}" invalid COMMAND ${validate} -)
expect_status(0 COMMAND "${MANIFEST_EMIT}" invalid COMMAND ${validate} --hpa-scale-to-zero -)
# Deliberately invalid: the per-direction tolerances, written for a cluster of unknown version,
# are unknown to Kubernetes 1.31's schema (the writer leaves them out for {.minor = 31}).
expect_status(1 COMMAND "${MANIFEST_EMIT}" tolerance COMMAND ${validate} -)
foreach(sample invalid_hpa invalid_scaledobject semantic_errors)
  expect_status(1 COMMAND ${validate} "${SCHEMAS}/samples/${sample}.yaml")
endforeach()
