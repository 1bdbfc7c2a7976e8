// Per-trial reductions of backend columns, with a plain C++ API: CUB's DeviceSegmentedReduce on the
// CUDA backend, a plain (OpenMP) loop on the CPU, behind one function each (DESIGN.md section 1).
// For per-trial metrics from per-port / per-endpoint counters, merged histograms, and the like.
//
// Pointers are backend memory (Column<V>::data(): device memory on CUDA, host memory on the CPU);
// results come back to the host. Only reductions whose result cannot depend on the order are
// offered: sums of integers, max and min of anything. There is no floating-point sum (CUB's tree
// and the CPU loop would round differently); sum integer counters and convert afterwards.
//
// Results are widened: 32-bit inputs reduce into 64 bits (Wide<V>), so sums of counters over many
// ports do not wrap. An empty segment gives the identity of the operation in the wide type:
// 0 for sum, numeric_limits<Wide<V>>::lowest() for max and max() for min (what CUB writes).
#pragma once
#include <cstdint>
#include <type_traits>
#include <vector>

namespace saturn {

enum class ReduceOp : uint8_t { kSum = 0, kMax = 1, kMin = 2, kCount };

// Where a column with groups keeps element e's value of group g: e * groups + g (element-major:
// an element's groups together) or g * elements + e (group-major: a group's elements together,
// as the per-endpoint latency histograms, kernels/stats/latency_histogram.hpp).
enum class GroupLayout : uint8_t { kElementMajor = 0, kGroupMajor = 1 };

template <class V>
using Wide = std::conditional_t<std::is_floating_point<V>::value, double,
                                std::conditional_t<std::is_signed<V>::value, int64_t, uint64_t>>;

// Trial-minor columns with `groups` values per element (kernels/common/index.hpp's at()):
// col[at(e * groups + g, t, trials)] for e < elements (or col[at(g * elements + e, t, trials)],
// kGroupMajor). Reduces over the elements, for every (g, t): out[at(g, t, trials)] = op over e.
// groups = 1 is the per-trial reduction of a per-port column (out[t]); groups = bins reduces
// per-endpoint histograms to one histogram per trial.
// V is uint16_t, uint32_t, uint64_t, int32_t, int64_t or double (double: kMax and kMin only).
template <class V>
std::vector<Wide<V>> reduce_over_elements(const V* col, int64_t elements, int64_t groups, int trials, ReduceOp op,
                                          GroupLayout layout = GroupLayout::kElementMajor);

// Per trial, how many of the elements' values differ from `absent` (a free-slot marker, e.g. an
// empty route-cache entry): out[t] = #{e : col[at(e, t, trials)] != absent}. Counted where the
// column lives, so a large table never crosses to the host. V is uint32_t.
template <class V>
std::vector<uint64_t> count_present(const V* col, int64_t elements, int trials, V absent);

// Contiguous segments: out[s] = op over col[begin[s] .. end[s]) (begin[s] <= end[s]; a segment may
// be empty). The offsets are host vectors of equal length.
template <class V>
std::vector<Wide<V>> segmented_reduce(const V* col, const std::vector<int64_t>& begin, const std::vector<int64_t>& end,
                                      ReduceOp op);

// Histogram merge across trials: bins[at(b, t, trials)] (trial-minor) -> merged[b] = sum over t,
// i.e. contiguous segments [b * trials, (b + 1) * trials) of segmented_reduce.
template <class V>
std::vector<Wide<V>> merge_histograms(const V* bins, int64_t num_bins, int trials);

// The same on host vectors (copied to backend memory first): for tests and small host tables.
template <class V>
std::vector<Wide<V>> reduce_over_elements_host(const std::vector<V>& col, int64_t elements, int64_t groups, int trials,
                                               ReduceOp op, GroupLayout layout = GroupLayout::kElementMajor);
template <class V>
std::vector<uint64_t> count_present_host(const std::vector<V>& col, int64_t elements, int trials, V absent);
template <class V>
std::vector<Wide<V>> segmented_reduce_host(const std::vector<V>& col, const std::vector<int64_t>& begin,
                                           const std::vector<int64_t>& end, ReduceOp op);

}  // namespace saturn
