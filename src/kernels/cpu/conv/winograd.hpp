#pragma once
// Winograd F(2x2, 3x3)'s input and output transforms on vectors (the NCHW kernel's lanes
// are 16 tiles, the NHWC kernel's a vector of channels of one tile): only adds and
// subtracts. Internal to conv_winograd.cpp and conv_nhwc.cpp.

namespace ge::cpu {

// V = B^T d B: d[r][c] the 4x4 window, element by element.
template <class Vec>
inline __attribute__((always_inline)) void input_transform(const Vec (&d)[4][4], Vec (&v)[4][4]) {
  Vec t[4][4];
  for (int c = 0; c < 4; ++c) {
    t[0][c] = d[0][c] - d[2][c];
    t[1][c] = d[1][c] + d[2][c];
    t[2][c] = d[2][c] - d[1][c];
    t[3][c] = d[1][c] - d[3][c];
  }
  for (int r = 0; r < 4; ++r) {
    v[r][0] = t[r][0] - t[r][2];
    v[r][1] = t[r][1] + t[r][2];
    v[r][2] = t[r][2] - t[r][1];
    v[r][3] = t[r][1] - t[r][3];
  }
}

// Y = A^T m A: the 2x2 outputs of the 4x4 products.
template <class Vec>
inline __attribute__((always_inline)) void output_transform(const Vec (&m)[4][4], Vec (&y)[2][2]) {
  Vec t[2][4];
  for (int c = 0; c < 4; ++c) {
    t[0][c] = m[0][c] + m[1][c] + m[2][c];
    t[1][c] = m[1][c] - m[2][c] - m[3][c];
  }
  for (int r = 0; r < 2; ++r) {
    y[r][0] = t[r][0] + t[r][1] + t[r][2];
    y[r][1] = t[r][1] - t[r][2] - t[r][3];
  }
}

}  // namespace ge::cpu
