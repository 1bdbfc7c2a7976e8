// One column of batched engine state in backend memory (Thrust device_vector underneath).
// Columns start at different multiples of 64 bytes within a 4 KiB page: every column is indexed
// element * T + trial, so without the stagger the same element of two columns would share the low
// 12 address bits, and on the CPU a load then waits on an older store to the other column
// ("4K aliasing"; measured: about 8% of the step on the benchmark).
// Included only by .cu files (it needs Thrust's device system).
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include <thrust/copy.h>
#include <thrust/device_vector.h>

namespace saturn {

class ColumnStagger {
 public:
  // Offset in bytes of the next column: 64-byte steps, 64 distinct positions in a page.
  size_t next() { return (static_cast<size_t>(count_++) * 320) % 4096; }
 private:
  int count_ = 0;
};

template <class T>
class Column {
 public:
  void assign(size_t n, const T& value, ColumnStagger& stagger) {
    offset_ = stagger.next() / sizeof(T);
    size_ = n;
    store_.assign(offset_ + n, value);
  }
  void assign(const std::vector<T>& host, ColumnStagger& stagger) {
    offset_ = stagger.next() / sizeof(T);
    size_ = host.size();
    store_.resize(offset_ + host.size());
    thrust::copy(host.begin(), host.end(), store_.begin() + offset_);
  }
  // Replaces the contents in place (same place in the stagger); the sizes must agree, so a host
  // table can never disagree with the extent the column list gives.
  void upload(const std::vector<T>& host, const char* name) {
    if (host.size() != size_)
      throw std::logic_error(std::string("column ") + name + ": the host gives " + std::to_string(host.size()) +
                             " elements, the column list " + std::to_string(size_));
    thrust::copy(host.begin(), host.end(), store_.begin() + offset_);
  }
  T* data() { return thrust::raw_pointer_cast(store_.data()) + offset_; }
  size_t size() const { return size_; }
  std::vector<T> to_host() const {
    std::vector<T> host(size_);
    thrust::copy(store_.begin() + offset_, store_.begin() + offset_ + size_, host.begin());
    return host;
  }

 private:
  thrust::device_vector<T> store_;
  size_t offset_ = 0, size_ = 0;
};

}  // namespace saturn
