// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/prometheus/page.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../prometheus/page.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace prometheus {

HEADROOM_DECL auto page::label_value(const sample& s, std::string_view name) const noexcept
    -> std::optional<std::string_view> {
  for (const label& l : labels(s))
    if (l.name == name) return l.value;
  return std::nullopt;
}

HEADROOM_DECL auto page::find_family(std::string_view name) const noexcept
    -> std::optional<std::size_t> {
  const std::size_t i = lookup(name);
  if (i == npos) return std::nullopt;
  return i;
}

HEADROOM_DECL auto page::clear() noexcept -> void {
  text_ = {};
  families_.clear();
  hashes_.clear();
  samples_.clear();
  labels_.clear();
  skipped_.clear();
  std::fill(slots_.begin(), slots_.end(), std::uint64_t{0});
  error_.reset();
  line_count_ = 0;
  missing_newline_ = false;
}

HEADROOM_DECL auto page::lookup(std::string_view name, std::uint64_t h) const noexcept
    -> std::size_t {
  if (slots_.empty()) return npos;
  const std::size_t mask = slots_.size() - 1;
  const std::uint64_t tag = h & ~slot_index_mask;
  for (std::size_t i = static_cast<std::size_t>(h) & mask;; i = (i + 1) & mask) {
    const std::uint64_t slot = slots_[i];
    if (slot == 0) return npos;
    const auto index = static_cast<std::size_t>(slot & slot_index_mask) - 1;
    if ((slot & ~slot_index_mask) == tag && families_[index].name == name) return index;
  }
}

HEADROOM_DECL auto page::insert_slot(std::size_t index) -> void {
  const std::size_t mask = slots_.size() - 1;
  const std::uint64_t h = hashes_[index];
  for (std::size_t i = static_cast<std::size_t>(h) & mask;; i = (i + 1) & mask) {
    if (slots_[i] == 0) {
      slots_[i] = (h & ~slot_index_mask) | (static_cast<std::uint64_t>(index) + 1);
      return;
    }
  }
}

HEADROOM_DECL auto page::add_family(std::string_view name, std::uint64_t h) -> std::size_t {
  families_.push_back(family{.name = name});
  hashes_.push_back(h);
  if (slots_.size() < 2 * families_.size()) {  // keep the load factor <= 1/2
    std::size_t n = slots_.empty() ? initial_slots : slots_.size() * 2;
    while (n < 2 * families_.size()) n *= 2;
    slots_.assign(n, std::uint64_t{0});
    for (std::size_t i = 0; i < families_.size(); ++i) insert_slot(i);
  } else {
    insert_slot(families_.size() - 1);
  }
  return families_.size() - 1;
}

[[nodiscard]] HEADROOM_DECL std::size_t detail::longest_probe(const page& p) noexcept {
  std::size_t longest = 0;
  const std::size_t mask = p.slots_.size() - 1;
  for (std::size_t i = 0; i < p.slots_.size(); ++i) {
    if (p.slots_[i] == 0) continue;
    const auto index = static_cast<std::size_t>(p.slots_[i] & page::slot_index_mask) - 1;
    const auto home = static_cast<std::size_t>(p.hashes_[index]) & mask;
    longest = std::max(longest, ((i - home) & mask) + 1);
  }
  return longest;
}

HEADROOM_DECL void unescape_to(std::string_view raw, std::string& out) {
  out.reserve(out.size() + raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) out.push_back(detail::unescape_at(raw, i));
}

HEADROOM_DECL std::string unescape(std::string_view raw) {
  std::string out;
  unescape_to(raw, out);
  return out;
}

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20
