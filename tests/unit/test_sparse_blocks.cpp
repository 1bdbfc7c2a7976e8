// Sparse blocks (host/io/binary_io.hpp: put_sparse, get_sparse), how saved batch states write the
// engine's columns: a block whose every element has the fill's bytes is one flag byte, any other
// block its flag and its bytes; reading gives back every element, a last partial block included.
#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include "host/io/binary_io.hpp"

namespace saturn {
namespace {

struct Wide {  // a 16-byte element, as a packet
  uint32_t a, b, c, d;
};
bool operator==(const Wide& x, const Wide& y) { return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d; }

template <class T>
std::vector<T> round_trip(const std::vector<T>& v, const T& fill, uint64_t* written) {
  std::stringstream buffer;
  BinaryWriter out(buffer);
  put_sparse(out, v.data(), v.size(), fill);
  *written = out.written();
  BinaryReader in(buffer, "test", out.written());
  std::vector<T> back(v.size(), T{});
  get_sparse(in, back.data(), back.size(), fill);
  EXPECT_EQ(in.left(), 0u);
  return back;
}

TEST(SparseBlocks, UntouchedBlocksAreAFlagByteAndEveryElementComesBack) {
  const size_t n = 5 * kSparseBlockElements + 37;  // a partial last block
  std::vector<uint32_t> v(n, 0xFFFFFFFFu);
  v[3] = 7;                                 // block 0 touched
  v[3 * kSparseBlockElements + 1] = 0;      // block 3 touched (0 is not the fill)
  v[n - 1] = 9;                             // the partial block touched
  uint64_t written = 0;
  EXPECT_EQ(round_trip(v, 0xFFFFFFFFu, &written), v);
  EXPECT_EQ(written, 6u + 3 * kSparseBlockElements * 4 - (kSparseBlockElements - 37) * 4);  // 6 flags, 3 blocks' bytes

  std::vector<Wide> w(2 * kSparseBlockElements + 5, Wide{1, 2, 3, 4});
  w[kSparseBlockElements + 2] = Wide{1, 2, 3, 5};
  EXPECT_EQ(round_trip(w, Wide{1, 2, 3, 4}, &written), w);
  EXPECT_EQ(written, 3u + kSparseBlockElements * sizeof(Wide));

  const std::vector<uint8_t> none;
  EXPECT_EQ(round_trip(none, uint8_t{0}, &written), none);
  EXPECT_EQ(written, 0u);
}

TEST(SparseBlocks, AFlagThatIsNeitherZeroNorOneIsAnError) {
  std::stringstream buffer;
  BinaryWriter out(buffer);
  out.put<uint8_t>(2);
  BinaryReader in(buffer, "state.bin", 1);
  std::vector<uint16_t> back(10);
  EXPECT_THROW(get_sparse(in, back.data(), back.size(), uint16_t{0}), std::runtime_error);
}

}  // namespace
}  // namespace saturn
