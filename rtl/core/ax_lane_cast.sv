// One lane of a dtype conversion (common/num convert(): decode to the exact value, one
// rounding into the target). Same dtype passes the raw bits through. Into int8/int32: round half
// to even, then clip / saturate (NaN -> 0, +-inf saturate). Into float16/float32: RNE with
// subnormals, overflow to inf, canonical NaN. Into float18: RNE as if the exponent range were
// unbounded, then flush below 2^-62 to a signed zero, overflow to inf, canonical NaN; a float18
// input is read with flush-to-zero. Lane values sit in the low bits of a 32-bit word.
module ax_lane_cast
  import axcore_pkg::*;
(
  input  dtype_e      from_i,
  input  dtype_e      to_i,
  input  logic [31:0] in_i,
  output logic [31:0] out_o
);
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

  val_t v;
  always_comb begin
    v = decode(from_i, in_i);
    if (from_i == to_i) begin
      out_o = in_i;
    end else begin
      unique case (to_i)
        DTYPE_INT8:    out_o = enc_int(v, 1'b1);
        DTYPE_INT32:   out_o = enc_int(v, 1'b0);
        DTYPE_FLOAT16: out_o = enc_float(v, 10, 5, 15, 1'b1, 32'h7E00);
        DTYPE_FLOAT32: out_o = enc_float(v, 23, 8, 127, 1'b1, 32'h7FC0_0000);
        default:       out_o = enc_float(v, 10, 7, 63, 1'b0, 32'h1_FE00);
      endcase
    end
  end
endmodule
