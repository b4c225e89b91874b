// float18 arithmetic of the DPU, bit-exact with common/num (num/float18.hpp, lut.hpp,
// reduce.hpp; docs/numerics.md). Layout [17] sign, [16:10] exponent (bias 63), [9:0] fraction.
// Operands are read with flush-to-zero (exponent 0 = a signed zero, any fraction); every result
// is rounded once to nearest even as if the exponent range were unbounded, then flushed below
// 2^-62 to a zero of the result's sign or overflowed to infinity; every NaN result is 0x1FE00.
// FMA rounds twice (product, then sum). The heavy functions are not inlined by Verilator
// (no_inline_task) so that 64 lanes share one copy of the code.
// verilator lint_off UNUSEDPARAM
package ax_f18_pkg;
  import axcore_pkg::*;

  typedef logic [17:0] f18_t;
  typedef logic [PWORD_LANES-1:0][17:0] f18x64_t;   // lane n at [18n +: 18]

  localparam f18_t F18_NAN  = 18'h1FE00;
  localparam logic [16:0] F18_INF_MAG = 17'h1FC00;
  localparam int unsigned LUT_SEGS = LUT_SEGMENTS;   // 31

  // A float18 decoded: a finite nonzero value is m * 2^e (m has its leading one at bit 10).
  typedef struct packed {
    logic              nan;
    logic              inf;
    logic              zero;
    logic              sign;
    logic signed [9:0] e;
    logic [10:0]       m;
  } f18u_t;

  function automatic f18u_t f18_unpack(f18_t x);
    f18u_t u;
    u      = '0;
    u.sign = x[17];
    if (x[16:10] == 7'h7F) begin
      u.nan = (x[9:0] != '0);
      u.inf = (x[9:0] == '0);
    end else if (x[16:10] == '0) begin
      u.zero = 1'b1;
    end else begin
      u.m = {1'b1, x[9:0]};
      u.e = 10'(int'(x[16:10]) - 73);
    end
    return u;
  endfunction

  // The encoding an operation returns for x: NaN -> canonical NaN, a subnormal encoding -> zero.
  function automatic f18_t f18_canon(f18_t x);
    if (x[16:10] == 7'h7F && x[9:0] != '0) return F18_NAN;
    if (x[16:10] == '0) return {x[17], 17'b0};
    return x;
  endfunction

  // verilator lint_off UNUSEDSIGNAL
  function automatic logic f18_is_nan(f18_t x);  // the sign does not matter
    return x[16:10] == 7'h7F && x[9:0] != '0;
  endfunction
  // verilator lint_on UNUSEDSIGNAL

  // (-1)^sign * (m + s) * 2^e with 0 <= s < 1 (s > 0 iff sticky), rounded to 11 significant bits
  // (RNE), then the exponent range: below 2^-62 a signed zero, above the largest finite an inf.
  function automatic f18_t f18_round(logic sign, logic [31:0] m, int e, logic sticky);
    /* verilator no_inline_task */
    int          p, s, lead;
    logic [31:0] keep, below;
    logic        rb;
    if (m == '0) return {sign, 17'b0};
    p = 0;
    for (int i = 0; i < 32; i++) if (m[i]) p = i;
    s = p - 10;
    if (s > 0) begin
      keep  = m >> s;
      rb    = m[s-1];
      below = m & ((32'd1 << (s - 1)) - 32'd1);
      if (rb && (below != '0 || sticky || keep[0])) keep = keep + 32'd1;
    end else begin
      keep = m << (-s);
    end
    lead = e + p;
    if (keep[11]) begin
      keep = keep >> 1;
      lead = lead + 1;
    end
    if (lead > 63) return {sign, F18_INF_MAG};
    if (lead < -62) return {sign, 17'b0};
    return {sign, 7'(lead + 63), keep[9:0]};
  endfunction

  function automatic f18_t f18_add(f18_t a, f18_t b);
    /* verilator no_inline_task */
    f18u_t       x, y, t;
    int          d;
    logic [31:0] ma, mb, yw, s;
    logic        sticky;
    x = f18_unpack(a);
    y = f18_unpack(b);
    if (x.nan || y.nan) return F18_NAN;
    if (x.inf && y.inf) return (x.sign == y.sign) ? {x.sign, F18_INF_MAG} : F18_NAN;
    if (x.inf) return {x.sign, F18_INF_MAG};
    if (y.inf) return {y.sign, F18_INF_MAG};
    if (x.zero && y.zero) return {x.sign & y.sign, 17'b0};
    if (x.zero) return b;
    if (y.zero) return a;
    if (y.e > x.e || (y.e == x.e && y.m > x.m)) begin  // |x| >= |y|
      t = x;
      x = y;
      y = t;
    end
    // 16 guard bits keep every bit that can reach the rounding position exact; what is shifted
    // out further only matters as a sticky bit.
    d  = int'(x.e) - int'(y.e);
    ma = 32'(x.m) << 16;
    yw = 32'(y.m) << 16;
    if (d > 27) begin
      mb     = '0;
      sticky = 1'b1;
    end else begin
      mb     = yw >> d;
      sticky = (yw & ((32'd1 << d) - 32'd1)) != '0;
    end
    if (x.sign == y.sign) s = ma + mb;
    else                  s = ma - mb - 32'(sticky);   // exact = s + (1 - fraction)
    if (s == '0 && !sticky) return 18'h0;             // exact cancellation: +0
    return f18_round(x.sign, s, int'(x.e) - 16, sticky);
  endfunction

  function automatic f18_t f18_sub(f18_t a, f18_t b);
    return f18_add(a, {~b[17], b[16:0]});
  endfunction

  function automatic f18_t f18_mul(f18_t a, f18_t b);
    /* verilator no_inline_task */
    f18u_t x, y;
    logic  sign;
    x    = f18_unpack(a);
    y    = f18_unpack(b);
    sign = x.sign ^ y.sign;
    if (x.nan || y.nan) return F18_NAN;
    if (x.inf || y.inf) return (x.zero || y.zero) ? F18_NAN : {sign, F18_INF_MAG};
    if (x.zero || y.zero) return {sign, 17'b0};
    return f18_round(sign, 32'(x.m) * 32'(y.m), int'(x.e) + int'(y.e), 1'b0);
  endfunction

  function automatic f18_t f18_fma(f18_t a, f18_t b, f18_t c);
    return f18_add(f18_mul(a, b), c);
  endfunction

  // IEEE a <= b on the flushed values (NaN compares false, -0 == +0).
  function automatic logic f18_le(f18_t a, f18_t b);
    f18_t ca, cb;
    ca = f18_canon(a);
    cb = f18_canon(b);
    if (f18_is_nan(ca) || f18_is_nan(cb)) return 1'b0;
    if (ca[16:0] == '0 && cb[16:0] == '0) return 1'b1;
    if (ca[17] != cb[17]) return ca[17];
    return ca[17] ? (ca[16:0] >= cb[16:0]) : (ca[16:0] <= cb[16:0]);
  endfunction

  function automatic f18_t f18_min(f18_t a, f18_t b);
    f18_t ca, cb;
    ca = f18_canon(a);
    cb = f18_canon(b);
    if (f18_is_nan(ca) || f18_is_nan(cb)) return F18_NAN;
    if (ca[16:0] == '0 && cb[16:0] == '0) return ca[17] ? ca : cb;   // -0 < +0
    return f18_le(ca, cb) ? ca : cb;
  endfunction

  function automatic f18_t f18_max(f18_t a, f18_t b);
    f18_t ca, cb;
    ca = f18_canon(a);
    cb = f18_canon(b);
    if (f18_is_nan(ca) || f18_is_nan(cb)) return F18_NAN;
    if (ca[16:0] == '0 && cb[16:0] == '0) return ca[17] ? cb : ca;
    return f18_le(cb, ca) ? ca : cb;
  endfunction

  // a >= 0 ? a : a * b (-0 passes as -0, NaN gives NaN).
  function automatic f18_t f18_prelu(f18_t a, f18_t b);
    f18_t ca;
    ca = f18_canon(a);
    if (!f18_is_nan(ca) && (!ca[17] || ca[16:0] == '0)) return ca;
    return f18_mul(a, b);
  endfunction

  // LUT segment of x in a table with x_min and inv_step (num::lut_segment):
  // u = f18(f18(x - x_min) * inv_step); 0 if u is NaN or <= 0, 30 if u >= 30, else floor(u).
  function automatic logic [4:0] f18_lut_seg(f18_t x, f18_t x_min, f18_t inv_step);
    /* verilator no_inline_task */
    f18u_t       u;
    logic [10:0] fl;
    u = f18_unpack(f18_mul(f18_sub(x, x_min), inv_step));
    if (u.nan || u.zero || u.sign) return 5'd0;
    if (u.inf || u.e >= 0) return 5'(LUT_SEGS - 1);
    fl = (-int'(u.e) >= 11) ? 11'd0 : u.m >> (-int'(u.e));
    return (fl >= 11'(LUT_SEGS - 1)) ? 5'(LUT_SEGS - 1) : fl[4:0];
  endfunction

  typedef enum logic [1:0] {RED_ADD, RED_MAX, RED_MIN} red_op_e;

  // The pairwise tree of num::tree_reduce: level by level, v[i] = op(v[2i], v[2i+1]).
  function automatic f18_t f18_reduce(f18x64_t a, red_op_e op);
    /* verilator no_inline_task */
    f18_t v [PWORD_LANES];
    for (int unsigned i = 0; i < PWORD_LANES; i++) v[i] = a[i];
    for (int unsigned n = PWORD_LANES / 2; n >= 1; n = n / 2) begin
      for (int unsigned i = 0; i < n; i++) begin
        unique case (op)
          RED_MAX: v[i] = f18_max(v[2*i], v[2*i+1]);
          RED_MIN: v[i] = f18_min(v[2*i], v[2*i+1]);
          default: v[i] = f18_add(v[2*i], v[2*i+1]);
        endcase
      end
    end
    return v[0];
  endfunction
endpackage
// verilator lint_on UNUSEDPARAM
