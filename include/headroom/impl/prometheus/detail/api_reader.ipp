// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/prometheus/detail/api_reader.hpp's non-template functions: included
// at the end of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../../prometheus/detail/api_reader.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace prometheus {
namespace detail {

HEADROOM_DECL auto api_reader::run() -> void {
  skip_ws();
  if (i_ == s_.size()) return fail(api_errc::empty_input);
  read_top();
  if (failed()) return;
  skip_ws();
  if (i_ != s_.size()) fail(api_errc::trailing_characters);
}

HEADROOM_DECL auto api_reader::read_timestamp(std::chrono::milliseconds& out) -> bool {
  skip_ws();
  const std::size_t at = i_;
  const char c = peek();
  if (!(c == '-' || (c >= '0' && c <= '9'))) {
    fail(c == '"' || c == '{' || c == '[' || c == 't' || c == 'f' || c == 'n'
             ? api_errc::invalid_timestamp
             : api_errc::syntax);
    return false;
  }
  const std::string_view tok = number_token();
  if (tok.empty()) {
    fail_at(api_errc::syntax, at);
    return false;
  }
  std::size_t k = 0;
  const bool negative = tok[0] == '-';
  if (negative) ++k;
  // The largest whole seconds whose milliseconds fit in int64 with room: 9.2e15 s.
  constexpr std::int64_t max_seconds = 9'200'000'000'000'000;
  std::int64_t seconds = 0;
  for (; k < tok.size() && tok[k] >= '0' && tok[k] <= '9'; ++k) {
    if (seconds > max_seconds / 10) {
      fail_at(api_errc::invalid_timestamp, at);
      return false;
    }
    seconds = seconds * 10 + (tok[k] - '0');
  }
  std::int64_t millis = 0;
  if (k < tok.size() && tok[k] == '.') {
    ++k;
    std::size_t digits = 0;
    for (; k < tok.size() && tok[k] >= '0' && tok[k] <= '9'; ++k, ++digits) {
      if (digits >= 3) {
        fail_at(api_errc::invalid_timestamp, at);
        return false;
      }
      millis = millis * 10 + (tok[k] - '0');
    }
    for (; digits < 3; ++digits) millis *= 10;
  }
  if (k != tok.size() || seconds > max_seconds) {  // an exponent
    fail_at(api_errc::invalid_timestamp, at);
    return false;
  }
  const std::int64_t total = seconds * 1000 + millis;
  out = std::chrono::milliseconds(negative ? -total : total);
  return true;
}

HEADROOM_DECL auto api_reader::read_value_string(double& out) -> bool {
  skip_ws();
  const std::size_t at = i_;
  std::string text;
  if (peek() != '"') {
    fail(api_errc::invalid_value);
    return false;
  }
  if (!read_string(text)) return false;
  if (parse_float(text, out) != parse_errc::none) {
    fail_at(api_errc::invalid_value, at);
    return false;
  }
  return true;
}

HEADROOM_DECL auto api_reader::count_point() -> bool {
  ++points_;
  if (limits_.max_points != 0 && points_ > limits_.max_points) {
    fail(api_errc::too_many_points);
    return false;
  }
  return true;
}

HEADROOM_DECL auto api_reader::read_labels(api_series& s) -> bool {
  const std::size_t at = i_;
  const bool ok = read_object([&](const std::string& key, std::size_t key_at) {
    if (limits_.max_labels_per_series != 0 && s.labels.size() >= limits_.max_labels_per_series) {
      fail(api_errc::too_many_labels);
      return false;
    }
    // The text parser's rules (label_names.hpp); the key is valid UTF-8 already.
    if (limits_.max_label_name_bytes != 0 && key.size() > limits_.max_label_name_bytes) {
      fail_at(api_errc::label_name_too_long, key_at);
      return false;
    }
    if (key.empty() ||
        (limits_.label_names == label_name_rule::legacy && !is_legacy_label_name(key))) {
      fail_at(api_errc::invalid_label_name, key_at);
      return false;
    }
    api_label l{.name = key, .value = {}};
    if (peek() != '"') {
      fail(api_errc::wrong_type);
      return false;
    }
    if (!read_string(l.value)) return false;
    s.labels.push_back(std::move(l));
    return true;
  });
  if (!ok) return false;
  std::sort(s.labels.begin(), s.labels.end(),
            [](const api_label& a, const api_label& b) { return a.name < b.name; });
  for (std::size_t k = 1; k < s.labels.size(); ++k)
    if (s.labels[k].name == s.labels[k - 1].name) {
      fail_at(api_errc::duplicate_label, at);
      return false;
    }
  return true;
}

HEADROOM_DECL auto api_reader::read_series(bool want_matrix) -> bool {
  if (limits_.max_series != 0 && out_.series.size() >= limits_.max_series) {
    fail(api_errc::too_many_series);
    return false;
  }
  skip_ws();
  const std::size_t at = i_;
  api_series s;
  bool seen_metric = false, seen_value = false;
  const bool ok = read_object([&](const std::string& key, std::size_t key_at) {
    if (key == "metric") {
      if (seen_metric) return dup(key_at);
      seen_metric = true;
      field_ = "metric";
      return read_labels(s);
    }
    if (key == (want_matrix ? "values" : "value")) {
      if (seen_value) return dup(key_at);
      seen_value = true;
      field_ = want_matrix ? "values" : "value";
      if (!want_matrix) {
        s.points.emplace_back();
        return count_point() && read_point(s.points.back());
      }
      return read_array([&] {
        s.points.emplace_back();
        return count_point() && read_point(s.points.back());
      });
    }
    if (key == "histogram" || key == "histograms") {
      fail_at(api_errc::native_histogram, key_at);
      return false;
    }
    if (key == (want_matrix ? "value" : "values")) {
      fail_at(api_errc::wrong_type, key_at);
      return false;
    }
    return skip_value();  // a field a later Prometheus may add
  });
  if (!ok) return false;
  if (!seen_metric || !seen_value) {
    field_ = !seen_metric ? "metric" : (want_matrix ? "values" : "value");
    fail_at(api_errc::missing_field, at);
    return false;
  }
  out_.series.push_back(std::move(s));
  return true;
}

HEADROOM_DECL auto api_reader::dup(std::size_t key_at) -> bool {
  fail_at(api_errc::duplicate_key, key_at);
  return false;
}

HEADROOM_DECL auto api_reader::read_result(api_result_type type) -> bool {
  field_ = "result";
  switch (type) {
    case api_result_type::vector:
    case api_result_type::matrix:
      return read_array([&] { return read_series(type == api_result_type::matrix); });
    case api_result_type::scalar:
      return count_point() && read_point(out_.scalar);
    case api_result_type::string:
      return read_pair(out_.scalar.timestamp, [&] { return read_string(out_.string_value); });
    case api_result_type::none:
      break;
  }
  return false;
}

HEADROOM_DECL auto api_reader::read_data() -> bool {
  bool seen_type = false, seen_result = false, result_read = false;
  std::size_t result_at = 0;
  const std::size_t at = i_;
  std::string type_text;
  const bool ok = read_object([&](const std::string& key, std::size_t key_at) {
    if (key == "resultType") {
      if (seen_type) return dup(key_at);
      seen_type = true;
      field_ = "resultType";
      skip_ws();
      const std::size_t value_at = i_;
      if (!read_string(type_text)) return false;
      if (type_text == "vector") {
        out_.type = api_result_type::vector;
      } else if (type_text == "scalar") {
        out_.type = api_result_type::scalar;
      } else if (type_text == "matrix") {
        out_.type = api_result_type::matrix;
      } else if (type_text == "string") {
        out_.type = api_result_type::string;
      } else {
        fail_at(api_errc::unknown_result_type, value_at);
        return false;
      }
      return true;
    }
    if (key == "result") {
      if (seen_result) return dup(key_at);
      seen_result = true;
      skip_ws();
      result_at = i_;
      if (seen_type) {
        result_read = true;
        return read_result(out_.type);
      }
      field_ = "result";
      return skip_value();
    }
    field_ = {};
    return skip_value();  // "stats" (stats=all) and fields a later Prometheus may add
  });
  if (!ok) return false;
  if (!seen_type || !seen_result) {
    field_ = seen_type ? "result" : "resultType";
    fail_at(api_errc::missing_field, at);
    return false;
  }
  if (!result_read) {
    // The result came first: read it now that the type is known, then come back.
    const std::size_t resume = i_;
    i_ = result_at;
    if (!read_result(out_.type)) return false;
    i_ = resume;
  }
  return true;
}

HEADROOM_DECL auto api_reader::read_messages(std::vector<std::string>& into) -> bool {
  return read_array([&] {
    const std::size_t total = out_.warnings.size() + out_.infos.size();
    if (limits_.max_messages != 0 && total >= limits_.max_messages) {
      fail(api_errc::too_many_messages);
      return false;
    }
    std::string m;
    if (!read_string(m)) return false;
    into.push_back(std::move(m));
    return true;
  });
}

HEADROOM_DECL auto api_reader::read_status() -> bool {
  field_ = "status";
  skip_ws();
  const std::size_t value_at = i_;
  std::string v;
  if (!read_string(v)) return false;
  if (v == "success") {
    out_.status = api_status::success;
  } else if (v == "error") {
    out_.status = api_status::error;
  } else {
    fail_at(api_errc::unknown_status, value_at);
    return false;
  }
  return true;
}

HEADROOM_DECL auto api_reader::read_top() -> void {
  bool seen_status = false, seen_data = false, seen_type = false, seen_error = false;
  bool seen_warnings = false, seen_infos = false;
  std::size_t data_at = 0;
  const std::size_t at = i_;
  const bool ok = read_object([&](const std::string& key, std::size_t key_at) {
    if (key == "status") {
      if (seen_status) return dup(key_at);
      seen_status = true;
      return read_status();
    }
    if (key == "data") {
      if (seen_data) return dup(key_at);
      seen_data = true;
      skip_ws();
      data_at = i_;
      field_ = "data";
      if (peek() == 'n') return literal("null");
      return skip_value();  // read once the status is known (an error's data is not read)
    }
    if (key == "errorType") {
      if (seen_type) return dup(key_at);
      seen_type = true;
      field_ = "errorType";
      return read_string(out_.error_type);
    }
    if (key == "error") {
      if (seen_error) return dup(key_at);
      seen_error = true;
      field_ = "error";
      return read_string(out_.error);
    }
    if (key == "warnings") {
      if (seen_warnings) return dup(key_at);
      seen_warnings = true;
      field_ = "warnings";
      return read_messages(out_.warnings);
    }
    if (key == "infos") {
      if (seen_infos) return dup(key_at);
      seen_infos = true;
      field_ = "infos";
      return read_messages(out_.infos);
    }
    field_ = {};
    return skip_value();  // fields a later Prometheus may add
  });
  if (!ok) return;
  if (!seen_status) {
    field_ = "status";
    return fail_at(api_errc::missing_field, at);
  }
  if (out_.status == api_status::error) {
    if (!seen_type || !seen_error) {
      field_ = seen_type ? "error" : "errorType";
      fail_at(api_errc::missing_field, at);
    }
    return;
  }
  if (!seen_data || s_[data_at] != '{') {
    field_ = "data";
    return fail_at(seen_data ? api_errc::wrong_type : api_errc::missing_field,
                   seen_data ? data_at : at);
  }
  const std::size_t resume = i_;
  i_ = data_at;
  if (!read_data()) return;
  i_ = resume;
  field_ = {};
}

}  // namespace detail
}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20
