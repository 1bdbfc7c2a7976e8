// Plain binary records for files only this build reads back (saved batch states,
// host/packet/batch_state.hpp): values in the machine's own byte order, vectors as a count then
// their bytes. The reader knows the file's size, so a cut or corrupt file is an error naming the
// file, never a huge allocation or a read past the end.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <istream>
#include <ostream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace saturn {

class BinaryWriter {
 public:
  explicit BinaryWriter(std::ostream& os) : os_(os) {}
  void bytes(const void* p, size_t n) {
    os_.write(static_cast<const char*>(p), static_cast<std::streamsize>(n));
    written_ += n;
  }
  template <class T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>, "put: plain values only");
    bytes(&v, sizeof v);
  }
  template <class T>
  void put_vector(const std::vector<T>& v) {
    static_assert(std::is_trivially_copyable_v<T>, "put_vector: plain values only");
    put<uint64_t>(v.size());
    bytes(v.data(), v.size() * sizeof(T));
  }
  void put_string(const std::string& s) {
    put<uint64_t>(s.size());
    bytes(s.data(), s.size());
  }
  uint64_t written() const { return written_; }
  bool ok() const { return static_cast<bool>(os_); }

 private:
  std::ostream& os_;
  uint64_t written_ = 0;
};

class BinaryReader {
 public:
  // `what` names the file in errors; `size` is its length in bytes.
  BinaryReader(std::istream& is, std::string what, uint64_t size) : is_(is), what_(std::move(what)), size_(size) {}
  void bytes(void* p, size_t n) {
    if (n > size_ - read_) fail("cut short");
    is_.read(static_cast<char*>(p), static_cast<std::streamsize>(n));
    if (!is_) fail("cut short");
    read_ += n;
  }
  template <class T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>, "get: plain values only");
    T v;
    bytes(&v, sizeof v);
    return v;
  }
  template <class T>
  std::vector<T> get_vector() {
    const uint64_t n = count(sizeof(T));
    std::vector<T> v(n);
    bytes(v.data(), n * sizeof(T));
    return v;
  }
  std::string get_string() {
    std::string s(count(1), '\0');
    bytes(s.data(), s.size());
    return s;
  }
  // A count of elements of `element_bytes` each that the rest of the file can hold.
  uint64_t count(size_t element_bytes) {
    const uint64_t n = get<uint64_t>();
    if (element_bytes > 0 && n > (size_ - read_) / element_bytes) fail("holds a count larger than the file");
    return n;
  }
  uint64_t left() const { return size_ - read_; }
  [[noreturn]] void fail(const std::string& why) const { throw std::runtime_error(what_ + ": " + why); }

 private:
  std::istream& is_;
  std::string what_;
  uint64_t size_, read_ = 0;
};

// n elements in blocks of kSparseBlockElements: a flag byte per block, 0 where every element of
// the block has the bytes of `fill` (nothing follows), else 1 and the block's bytes. A network's
// state is mostly as allocated (entry pools sized for the smallest packets, rings of long links,
// a pack's idle lanes): a saved 1056-node dragonfly trial is a fraction of its 204 MB of columns.
constexpr size_t kSparseBlockElements = 256;

template <class T>
void put_sparse(BinaryWriter& out, const T* data, size_t n, const T& fill) {
  static_assert(std::is_trivially_copyable_v<T>, "put_sparse: plain values only");
  const std::vector<T> fill_block(std::min(n, kSparseBlockElements), fill);
  for (size_t first = 0; first < n; first += kSparseBlockElements) {
    const size_t bytes = std::min(kSparseBlockElements, n - first) * sizeof(T);
    const bool as_filled = std::memcmp(data + first, fill_block.data(), bytes) == 0;
    out.put<uint8_t>(as_filled ? 0 : 1);
    if (!as_filled) out.bytes(data + first, bytes);
  }
}

template <class T>
void get_sparse(BinaryReader& in, T* data, size_t n, const T& fill) {
  for (size_t first = 0; first < n; first += kSparseBlockElements) {
    const size_t count = std::min(kSparseBlockElements, n - first);
    const uint8_t flag = in.get<uint8_t>();
    if (flag == 0) std::fill(data + first, data + first + count, fill);
    else if (flag == 1) in.bytes(data + first, count * sizeof(T));
    else in.fail("holds a block flag that is neither 0 nor 1");
  }
}

}  // namespace saturn
