// SPDX-License-Identifier: Apache-2.0
// Reading CSV back, in either layout (plain: metadata columns on every row; commented: a
// '# headroom' line before each block): the blocks and their rows, or the first bad line and
// why.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "../detail/from_chars.hpp"
#include "csv_write.hpp"
#include "problem.hpp"
#include "row.hpp"

namespace headroom {
inline namespace v0 {
namespace plan {

/// One block read back: its header fields and its rows. configuration::accelerator is the
/// position of the accelerator's name among the block's names in order of first
/// appearance (the grid itself is not in the file; keys name it).
struct csv_block {
  std::string version{};                    ///< library version that wrote it
  std::string plan_name{};                  ///< problem::name
  std::string model_name{};                 ///< model_shape::name
  std::uint64_t fingerprint = 0;            ///< fingerprint(problem, lengths)
  std::size_t configurations = 0;           ///< configurations in the whole grid
  shard part{};                             ///< which shard this block holds
  std::vector<std::string> accelerators{};  ///< accelerator names seen, in order
  std::vector<row> rows{};                  ///< the rows, in file order
};

/// The outcome of reading CSV text: the blocks, or the first bad line and why.
struct csv_read_result {
  std::vector<csv_block> blocks{};  ///< every block, in file order
  std::size_t error_line = 0;       ///< 1-based line of the first error; 0 when ok
  std::string error{};              ///< what is wrong there; empty when ok
  /// true when the whole text was read without error.
  [[nodiscard]] bool ok() const noexcept { return error_line == 0 && error.empty(); }
};

namespace detail {
[[nodiscard]] HEADROOM_DECL std::vector<std::string_view> split(std::string_view line, char by);
[[nodiscard]] HEADROOM_DECL bool parse_double(std::string_view s, double& v);
template <class I>
[[nodiscard]] bool parse_integer(std::string_view s, I& v) {
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return !s.empty() && ec == std::errc{} && ptr == s.data() + s.size();
}

// A header line, `# headroom <version> plan <name> model <model> fingerprint <hex>
// configurations <N> shard <k>/<n>`, as an empty block, or why it is not one.
struct header_read {
  csv_block block{};
  std::string error{};  // empty when read
};

[[nodiscard]] HEADROOM_DECL std::optional<std::uint64_t> parse_fingerprint(std::string_view hex);

[[nodiscard]] HEADROOM_DECL header_read read_header(std::string_view line);

// Reads one row's fields in column order; good() stays true while every field parsed.
class row_reader {
 public:
  explicit row_reader(const std::vector<std::string_view>& fields) : fields_(fields) {}
  [[nodiscard]] bool good() const noexcept { return good_; }
  [[nodiscard]] std::string_view text() { return fields_[at_++]; }
  template <class Integer>
  void integer(Integer& v) {
    good_ = parse_integer(text(), v) && good_;
  }
  void number(double& v) { good_ = parse_double(text(), v) && good_; }
  HEADROOM_DECL void seconds(std::chrono::duration<double>& v);
  // One of `names`' enumerators, by its to_string.
  template <class Enum, std::size_t N>
  void choice(Enum& v, const Enum (&names)[N]) {
    const std::string_view t = text();
    for (const Enum e : names)
      if (t == to_string(e)) {
        v = e;
        return;
      }
    good_ = false;
  }

 private:
  const std::vector<std::string_view>& fields_;
  std::size_t at_ = 0;
  bool good_ = true;
};

// The columns index .. kv; the accelerator's name becomes its position among `accelerators`
// (added when new).
HEADROOM_DECL void read_configuration(row_reader& in, row& r,
                                      std::vector<std::string>& accelerators);

// The columns status .. calibration.
HEADROOM_DECL void read_measurements(row_reader& in, row& r);

// The column line after a header: the number of fields a row has, or 0 when the names are
// not row_columns (optionally followed by decision_columns).
[[nodiscard]] HEADROOM_DECL std::size_t columns_of(std::string_view line);

// A plain table's column line: the fields a row has (metadata included), or 0 when the names
// are not metadata_columns followed by what columns_of takes.
[[nodiscard]] HEADROOM_DECL std::size_t plain_columns_of(std::string_view line);

// A plain row's metadata fields as a block (no rows), or why not.
[[nodiscard]] HEADROOM_DECL header_read read_metadata(const std::vector<std::string_view>& fields);

// Whether `a` and `b` name the same grid and shard.
[[nodiscard]] HEADROOM_DECL bool same_block(const csv_block& a, const csv_block& b) noexcept;

}  // namespace detail

/// Reads blocks written by write_csv, in either layout (several may follow each other, e.g.
/// one per model or concatenated shards; a plain table's rows form one block per run of equal
/// metadata, and its column line may repeat). Lines may end in "\r\n"; blank lines are
/// skipped. Verdict columns, when present, are ignored (merge and decide recompute them).
/// Never throws for bad text: the error names the line.
[[nodiscard]] HEADROOM_DECL csv_read_result read_csv(std::string_view text);

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/plan/csv_read.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20
