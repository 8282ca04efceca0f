// SPDX-License-Identifier: Apache-2.0
// Streaming readers of public LLM production traces into arrival schedules with lengths:
//  - the Azure LLM inference traces (Azure/AzurePublicDataset, AzureLLMInferenceTrace_code.csv
//    and _conv.csv; Patel et al., "Splitwise", ISCA 2024): CSV TIMESTAMP,ContextTokens,
//    GeneratedTokens, TIMESTAMP a date-time "2023-11-16 18:15:46.6805900";
//  - BurstGPT (HPMLL/BurstGPT; Wang et al., KDD 2025): CSV Timestamp,Model,Request tokens,
//    Response tokens,Total tokens,Log Type, Timestamp in seconds from 0:00 of the first day;
//  - Mooncake's traces (kvcache-ai/Mooncake, FAST25-release/traces; Qin et al., FAST 2025):
//    JSON lines {"timestamp": ms, "input_length": n, "output_length": n, "hash_ids": [...]}.
// A reader pulls bytes from a source (a file, a std::istream, a string, or any callable that
// fills a buffer) through one fixed buffer and yields one trace_request per row: its arrival
// (seconds from the window's start, divided by the replay speed) and its prompt and output
// tokens. Memory is constant in the file's size and nothing is allocated per row. A
// malformed row is the caller's error: headroom::invalid_argument naming `source`, whose
// message is "file:line: reason". Adapters give the fleet day its per-minute traffic and the
// replica simulator its requests. Formats, units and a worked example: docs/traces.md.
// This header only includes the pieces, each usable alone:
//   traces/options.hpp   trace_format, trace_options, trace_request, trace_summary
//   traces/sources.hpp   trace_text, trace_file, trace_stream and the TraceSource concept
//   traces/parsing.hpp   the private field parsers and the "file:line: reason" errors
//   traces/reader.hpp    trace_reader, one request per row in constant memory
//   traces/adapters.hpp  read_trace, summarize_trace, read_trace_rates, read_trace_requests,
//                        read_trace_lengths
#pragma once

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include "traces/adapters.hpp"
#include "traces/options.hpp"
#include "traces/parsing.hpp"
#include "traces/reader.hpp"
#include "traces/sources.hpp"

#endif  // HEADROOM_HAS_CXX20
