// The dtype conversions of common/num convert(), as functions (ax_lane_cast and ax_pword_cast
// wrap them; the DPU calls them in its clocked stages): decode to the exact value sign * m * 2^e,
// one rounding into the target. Same dtype passes the raw bits through. Into int8/int32: round
// half to even, then clip / saturate (NaN -> 0, +-inf saturate). Into float16/float32: RNE with
// subnormals, overflow to inf, canonical NaN. Into float18: RNE as if the exponent range were
// unbounded, then flush below 2^-62 to a signed zero, overflow to inf, canonical NaN; a float18
// input is read with flush-to-zero. Lane values sit in the low bits of a 32-bit word; a PWORD
// holds lane n at bits [8w*n +: 8w] (w = lane bytes; float18 lanes use 32-bit slots).
// cast_lane is not inlined by Verilator: one copy of the code serves every lane.
// verilator lint_off UNUSEDPARAM
package ax_cast_pkg;
  import axcore_pkg::*;
  import ax_rtl_pkg::*;

  // value = (-1)^sign * m * 2^e, or a special
  typedef struct packed {
    logic              nan;
    logic              inf;
    logic              sign;
    logic [31:0]       m;     // 0 = zero
    logic signed [9:0] e;
  } val_t;

  function automatic val_t decode(dtype_e d, logic [31:0] x);
    val_t v;
    v = '0;
    unique case (d)
      DTYPE_INT8: begin
        v.sign = x[7];
        v.m    = x[7] ? 32'(32'h100 - 32'(x[7:0])) : 32'(x[7:0]);
      end
      DTYPE_INT32: begin
        v.sign = x[31];
        v.m    = x[31] ? 32'(-x) : x;
      end
      DTYPE_FLOAT16: begin
        v.sign = x[15];
        if (x[14:10] == 5'h1F) begin
          v.nan = (x[9:0] != '0);
          v.inf = (x[9:0] == '0);
        end else if (x[14:10] == '0) begin
          v.m = 32'(x[9:0]);
          v.e = -10'sd24;
        end else begin
          v.m = 32'({1'b1, x[9:0]});
          v.e = 10'(int'(x[14:10]) - 25);
        end
      end
      DTYPE_FLOAT32: begin
        v.sign = x[31];
        if (x[30:23] == 8'hFF) begin
          v.nan = (x[22:0] != '0);
          v.inf = (x[22:0] == '0);
        end else if (x[30:23] == '0) begin
          v.m = 32'(x[22:0]);
          v.e = -10'sd149;
        end else begin
          v.m = 32'({1'b1, x[22:0]});
          v.e = 10'(int'(x[30:23]) - 150);
        end
      end
      default: begin  // FLOAT18, read with flush-to-zero
        v.sign = x[17];
        if (x[16:10] == 7'h7F) begin
          v.nan = (x[9:0] != '0);
          v.inf = (x[9:0] == '0);
        end else if (x[16:10] != '0) begin
          v.m = 32'({1'b1, x[9:0]});
          v.e = 10'(int'(x[16:10]) - 73);
        end
      end
    endcase
    return v;
  endfunction

  function automatic int msb(logic [31:0] m);
    int p;
    p = 0;
    for (int i = 0; i < 32; i++) if (m[i]) p = i;
    return p;
  endfunction

  // m * 2^-s rounded to nearest even (s may be negative: exact left shift, s >= -32).
  function automatic logic [63:0] shift_rne(logic [31:0] m, int s);
    logic [63:0] n;
    logic [95:0] w;
    logic        half, sticky;
    if (s <= 0) return 64'(m) << (-s);
    if (s > 64) return '0;
    w      = {m, 64'b0} >> s;   // integer part in [95:64], fraction below
    n      = 64'(w[95:64]);
    half   = w[63];
    sticky = (w[62:0] != '0);
    if (half && (sticky || n[0])) n = n + 1;
    return n;
  endfunction

  // Float encode: frac bits F, exponent width EW, bias, subnormals kept (else flushed).
  function automatic logic [31:0] enc_float(val_t v, int F, int EW, int bias, logic sub,
                                            logic [31:0] qnan);
    int          lead, q, biased;
    logic [63:0] n;
    logic [31:0] s_bit, r;
    s_bit = 32'(v.sign) << (F + EW);
    if (v.nan) return qnan;
    if (v.inf) return s_bit | (((32'd1 << EW) - 1) << F);
    if (v.m == '0) return s_bit;
    lead = int'(v.e) + msb(v.m);
    q    = (sub && lead < 1 - bias) ? (1 - bias) - F : lead - F;
    n    = shift_rne(v.m, q - int'(v.e));
    if (n == (64'd1 << (F + 1))) begin
      n = n >> 1;
      q = q + 1;
    end
    if (n == '0) return s_bit;
    if (n >= (64'd1 << F)) begin
      biased = q + F + bias;
      if (biased >= (1 << EW) - 1) return s_bit | (((32'd1 << EW) - 1) << F);
      if (biased <= 0) return s_bit;  // only without subnormals: flush to zero
      r = s_bit | (32'(biased) << F) | (32'(n) & ((32'd1 << F) - 1));
    end else begin
      r = s_bit | 32'(n);  // subnormal
    end
    return r;
  endfunction

  // Integer encode: RNE, then saturate to [lo, hi] (int8: clip, int32: saturate).
  function automatic logic [31:0] enc_int(val_t v, logic is8);
    logic [63:0] n, lim;
    logic [31:0] r;
    if (v.nan) return '0;
    lim = is8 ? (v.sign ? 64'd128 : 64'd127) : (v.sign ? 64'h8000_0000 : 64'h7FFF_FFFF);
    if (v.inf || v.e > 10'sd31) n = lim;
    else                        n = shift_rne(v.m, -int'(v.e));
    if (n > lim) n = lim;
    r = v.sign ? 32'(-n) : 32'(n);
    return is8 ? {24'b0, r[7:0]} : r;
  endfunction

  function automatic logic [31:0] cast_lane(dtype_e from, dtype_e to, logic [31:0] x);
    /* verilator no_inline_task */
    val_t v;
    if (from == to) return x;
    v = decode(from, x);
    unique case (to)
      DTYPE_INT8:    return enc_int(v, 1'b1);
      DTYPE_INT32:   return enc_int(v, 1'b0);
      DTYPE_FLOAT16: return enc_float(v, 10, 5, 15, 1'b1, 32'h7E00);
      DTYPE_FLOAT32: return enc_float(v, 23, 8, 127, 1'b1, 32'h7FC0_0000);
      default:       return enc_float(v, 10, 7, 63, 1'b0, 32'h1_FE00);
    endcase
  endfunction

  function automatic int unsigned lane_bits(dtype_e d);
    unique case (d)
      DTYPE_INT8:    return 8;
      DTYPE_FLOAT16: return 16;
      default:       return 32;
    endcase
  endfunction

  function automatic elem_t cast_pword(dtype_e from, dtype_e to, elem_t in);
    elem_t       out;
    logic [31:0] l, r;
    out = '0;
    for (int unsigned n = 0; n < PWORD_LANES; n++) begin
      unique case (lane_bits(from))
        8:       l = 32'(in[8*n +: 8]);
        16:      l = 32'(in[16*n +: 16]);
        default: l = in[32*n +: 32];
      endcase
      r = cast_lane(from, to, l);
      unique case (lane_bits(to))
        8:       out[8*n +: 8]   = r[7:0];
        16:      out[16*n +: 16] = r[15:0];
        default: out[32*n +: 32] = r;
      endcase
    end
    return out;
  endfunction
endpackage
// verilator lint_on UNUSEDPARAM
