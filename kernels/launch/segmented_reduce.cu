// Segmented reductions of backend columns (segmented_reduce.hpp): cub::DeviceSegmentedReduce over
// a gathering iterator on CUDA, an OpenMP loop in element order on the CPU. Both give the same
// values: only integer sums, max and min are offered.
#include "kernels/launch/segmented_reduce.hpp"

#include "kernels/common/macros.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include <thrust/copy.h>
#include <thrust/device_vector.h>

#if defined(SATURN_BACKEND_CUDA)
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/sequence.h>
#endif

namespace saturn {

namespace {

template <class V>
void check_op(ReduceOp op, const char* what) {
  if (op != ReduceOp::kSum && op != ReduceOp::kMax && op != ReduceOp::kMin)
    throw std::invalid_argument(std::string(what) + ": op must be kSum, kMax or kMin");
  if (std::is_floating_point<V>::value && op == ReduceOp::kSum)
    throw std::invalid_argument(std::string(what) + ": floating-point sums are not offered (the order would show); "
                                "sum integer counters, or use kMax/kMin");
}

template <class W>
W identity(ReduceOp op) {
  if (op == ReduceOp::kMax) return std::numeric_limits<W>::lowest();
  if (op == ReduceOp::kMin) return std::numeric_limits<W>::max();
  return W{0};
}

// Where element e's value of group g sits in a column of `groups` values per element, before the
// trials (GroupLayout): the one rule of the device gather and the CPU loop below.
SATURN_HD inline int64_t grouped_slot(bool group_major, int64_t e, int64_t g, int64_t elements, int64_t groups) {
  return group_major ? g * elements + e : e * groups + g;
}

#if defined(SATURN_BACKEND_CUDA)

// Position p of the segment-major sequence (segment s = g * trials + t, item e) -> map(column value).
template <class V, class Map>
struct ElementGather {
  const V* col;
  int64_t elements, groups, trials;
  bool group_major;
  Map map;
  __host__ __device__ auto operator()(int64_t p) const {
    const int64_t s = p / elements, e = p % elements;
    const int64_t g = s / trials, t = s % trials;
    return map(col[grouped_slot(group_major, e, g, elements, groups) * trials + t]);
  }
};

void check_cuda(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw std::runtime_error(std::string(what) + ": CUDA error: " + cudaGetErrorString(err));
}

// One CUB call (size query, then the reduction) over `segments` segments [begin[s], end[s]).
template <class In, class W>
std::vector<W> cub_reduce(In in, int64_t segments, const int64_t* d_begin, const int64_t* d_end, ReduceOp op,
                          const char* what) {
  thrust::device_vector<W> out(static_cast<size_t>(segments));
  W* d_out = thrust::raw_pointer_cast(out.data());
  size_t bytes = 0;
  const auto call = [&](void* tmp) {
    if (op == ReduceOp::kSum) return cub::DeviceSegmentedReduce::Sum(tmp, bytes, in, d_out, segments, d_begin, d_end);
    if (op == ReduceOp::kMax) return cub::DeviceSegmentedReduce::Max(tmp, bytes, in, d_out, segments, d_begin, d_end);
    return cub::DeviceSegmentedReduce::Min(tmp, bytes, in, d_out, segments, d_begin, d_end);
  };
  if (segments > 0) {
    check_cuda(call(nullptr), what);
    thrust::device_vector<unsigned char> tmp(std::max<size_t>(bytes, 1));
    check_cuda(call(thrust::raw_pointer_cast(tmp.data())), what);
    check_cuda(cudaStreamSynchronize(cudaStreamPerThread), what);  // this host thread's work only
  }
  std::vector<W> host(out.size());
  thrust::copy(out.begin(), out.end(), host.begin());
  return host;
}

#else

template <class W>
W combine(W a, W b, ReduceOp op) {
  if (op == ReduceOp::kMax) return b > a ? b : a;
  if (op == ReduceOp::kMin) return b < a ? b : a;
  return a + b;
}

#endif

// What a reduction sees of a column value: the value itself, widened (reduce_over_elements) ...
template <class V, class W>
struct WidenValue {
  SATURN_HD W operator()(V x) const { return static_cast<W>(x); }
};

// ... or 1 where it differs from the free-slot marker, else 0 (count_present).
template <class V>
struct IsPresent {
  V absent;
  SATURN_HD uint64_t operator()(V x) const { return x != absent ? 1 : 0; }
};

// out[g * trials + t] = op over e of map(col[at(e * groups + g, t, trials)]): the shared body of
// reduce_over_elements and count_present (arguments checked by the callers).
template <class W, class V, class Map>
std::vector<W> reduce_mapped(const V* col, int64_t elements, int64_t groups, int trials, ReduceOp op, Map map,
                             const char* what, GroupLayout layout = GroupLayout::kElementMajor) {
  const bool group_major = layout == GroupLayout::kGroupMajor;
  const int64_t segments = groups * trials;
#if defined(SATURN_BACKEND_CUDA)
  if (elements == 0) return std::vector<W>(static_cast<size_t>(segments), identity<W>(op));
  thrust::device_vector<int64_t> offsets(static_cast<size_t>(segments + 1));
  thrust::sequence(offsets.begin(), offsets.end(), int64_t{0}, elements);
  const int64_t* d_off = thrust::raw_pointer_cast(offsets.data());
  const auto in = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0),
                                                  ElementGather<V, Map>{col, elements, groups, trials, group_major, map});
  return cub_reduce<decltype(in), W>(in, segments, d_off, d_off + 1, op, what);
#else
  (void)what;
  // Chunks of 64 trials of one group: each output is owned by one chunk and combined in element
  // order; the inner loop runs over consecutive trials (contiguous, vectorizable).
  std::vector<W> out(static_cast<size_t>(segments), identity<W>(op));
  constexpr int64_t kChunk = 64;
  const int64_t per_group = (trials + kChunk - 1) / kChunk, chunks = groups * per_group;
#pragma omp parallel for schedule(static) if (elements * segments > (int64_t{1} << 16))
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t g = c / per_group, t0 = (c % per_group) * kChunk, t1 = std::min<int64_t>(trials, t0 + kChunk);
    W* o = out.data() + g * trials;
    for (int64_t e = 0; e < elements; ++e) {
      const V* row = col + grouped_slot(group_major, e, g, elements, groups) * trials;
      for (int64_t t = t0; t < t1; ++t) o[t] = combine(o[t], static_cast<W>(map(row[t])), op);
    }
  }
  return out;
#endif
}

}  // namespace

template <class V>
std::vector<Wide<V>> reduce_over_elements(const V* col, int64_t elements, int64_t groups, int trials, ReduceOp op,
                                          GroupLayout layout) {
  using W = Wide<V>;
  check_op<V>(op, "reduce_over_elements");
  if (elements < 0 || groups < 1 || trials < 1)
    throw std::invalid_argument("reduce_over_elements: need elements >= 0, groups >= 1 and trials >= 1 (got " +
                                std::to_string(elements) + ", " + std::to_string(groups) + ", " + std::to_string(trials) + ")");
  return reduce_mapped<W>(col, elements, groups, trials, op, WidenValue<V, W>{}, "reduce_over_elements", layout);
}

template <class V>
std::vector<uint64_t> count_present(const V* col, int64_t elements, int trials, V absent) {
  if (elements < 0 || trials < 1)
    throw std::invalid_argument("count_present: need elements >= 0 and trials >= 1 (got " + std::to_string(elements) +
                                ", " + std::to_string(trials) + ")");
  return reduce_mapped<uint64_t>(col, elements, 1, trials, ReduceOp::kSum, IsPresent<V>{absent}, "count_present");
}

template <class V>
std::vector<uint64_t> count_present_host(const std::vector<V>& col, int64_t elements, int trials, V absent) {
  if (static_cast<int64_t>(col.size()) != elements * trials)
    throw std::invalid_argument("count_present: column has " + std::to_string(col.size()) + " values, expected " +
                                std::to_string(elements * trials));
  const thrust::device_vector<V> d(col.begin(), col.end());
  return count_present(thrust::raw_pointer_cast(d.data()), elements, trials, absent);
}

template <class V>
std::vector<Wide<V>> segmented_reduce(const V* col, const std::vector<int64_t>& begin, const std::vector<int64_t>& end,
                                      ReduceOp op) {
  using W = Wide<V>;
  check_op<V>(op, "segmented_reduce");
  if (begin.size() != end.size())
    throw std::invalid_argument("segmented_reduce: begin and end offsets differ in length (" + std::to_string(begin.size()) +
                                " vs " + std::to_string(end.size()) + ")");
  for (size_t s = 0; s < begin.size(); ++s)
    if (begin[s] < 0 || end[s] < begin[s])
      throw std::invalid_argument("segmented_reduce: segment " + std::to_string(s) + " is [" + std::to_string(begin[s]) +
                                  ", " + std::to_string(end[s]) + "): need 0 <= begin <= end");
  const int64_t segments = static_cast<int64_t>(begin.size());
#if defined(SATURN_BACKEND_CUDA)
  const thrust::device_vector<int64_t> d_begin(begin.begin(), begin.end()), d_end(end.begin(), end.end());
  const auto in = thrust::make_transform_iterator(col, WidenValue<V, W>{});
  return cub_reduce<decltype(in), W>(in, segments, thrust::raw_pointer_cast(d_begin.data()),
                                     thrust::raw_pointer_cast(d_end.data()), op, "segmented_reduce");
#else
  std::vector<W> out(static_cast<size_t>(segments), identity<W>(op));
#pragma omp parallel for schedule(dynamic, 16) if (segments > 64)
  for (int64_t s = 0; s < segments; ++s) {
    W acc = identity<W>(op);
    for (int64_t i = begin[s]; i < end[s]; ++i) acc = combine(acc, static_cast<W>(col[i]), op);
    out[s] = acc;
  }
  return out;
#endif
}

template <class V>
std::vector<Wide<V>> merge_histograms(const V* bins, int64_t num_bins, int trials) {
  if (num_bins < 0 || trials < 1)
    throw std::invalid_argument("merge_histograms: need num_bins >= 0 and trials >= 1 (got " + std::to_string(num_bins) +
                                ", " + std::to_string(trials) + ")");
  std::vector<int64_t> begin(static_cast<size_t>(num_bins)), end(static_cast<size_t>(num_bins));
  for (int64_t b = 0; b < num_bins; ++b) {
    begin[b] = b * trials;
    end[b] = (b + 1) * trials;
  }
  return segmented_reduce(bins, begin, end, ReduceOp::kSum);
}

template <class V>
std::vector<Wide<V>> reduce_over_elements_host(const std::vector<V>& col, int64_t elements, int64_t groups, int trials,
                                               ReduceOp op, GroupLayout layout) {
  if (static_cast<int64_t>(col.size()) != elements * groups * trials)
    throw std::invalid_argument("reduce_over_elements: column has " + std::to_string(col.size()) + " values, expected " +
                                std::to_string(elements * groups * trials));
  const thrust::device_vector<V> d(col.begin(), col.end());
  return reduce_over_elements(thrust::raw_pointer_cast(d.data()), elements, groups, trials, op, layout);
}

template <class V>
std::vector<Wide<V>> segmented_reduce_host(const std::vector<V>& col, const std::vector<int64_t>& begin,
                                           const std::vector<int64_t>& end, ReduceOp op) {
  for (size_t s = 0; s < begin.size() && s < end.size(); ++s)
    if (end[s] > static_cast<int64_t>(col.size()))
      throw std::invalid_argument("segmented_reduce: segment " + std::to_string(s) + " ends at " + std::to_string(end[s]) +
                                  ", past the column's " + std::to_string(col.size()) + " values");
  const thrust::device_vector<V> d(col.begin(), col.end());
  return segmented_reduce(thrust::raw_pointer_cast(d.data()), begin, end, op);
}

#define SATURN_SEGMENTED_REDUCE(V)                                                                                       \
  template std::vector<Wide<V>> reduce_over_elements<V>(const V*, int64_t, int64_t, int, ReduceOp, GroupLayout);         \
  template std::vector<Wide<V>> segmented_reduce<V>(const V*, const std::vector<int64_t>&, const std::vector<int64_t>&, \
                                                    ReduceOp);                                                          \
  template std::vector<Wide<V>> merge_histograms<V>(const V*, int64_t, int);                                             \
  template std::vector<Wide<V>> reduce_over_elements_host<V>(const std::vector<V>&, int64_t, int64_t, int, ReduceOp,    \
                                                             GroupLayout);                                              \
  template std::vector<Wide<V>> segmented_reduce_host<V>(const std::vector<V>&, const std::vector<int64_t>&,           \
                                                         const std::vector<int64_t>&, ReduceOp);
SATURN_SEGMENTED_REDUCE(uint16_t)
SATURN_SEGMENTED_REDUCE(uint32_t)
SATURN_SEGMENTED_REDUCE(uint64_t)
SATURN_SEGMENTED_REDUCE(int32_t)
SATURN_SEGMENTED_REDUCE(int64_t)
SATURN_SEGMENTED_REDUCE(double)
#undef SATURN_SEGMENTED_REDUCE
template std::vector<uint64_t> count_present<uint32_t>(const uint32_t*, int64_t, int, uint32_t);
template std::vector<uint64_t> count_present_host<uint32_t>(const std::vector<uint32_t>&, int64_t, int, uint32_t);

}  // namespace saturn
