// The ODR's lane-transpose buffer (walk field transpose, A.vtrsp; DWPU datapath only): 64 element
// registers, one written per pop (element j, already cast to the walk's dtype), and a
// combinational read of transposed element i: its lane j is lane i of element j, for the lane
// width of dtype_i (1, 2 or 4 bytes; lane n of an element image at bits [8w*n +: 8w]).
module ax_odr_trsp
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
  import ax_core_pkg::*;
(
  input  logic                       clk_i,
  input  logic                       we_i,
  input  logic [$clog2(PWORD_LANES)-1:0] widx_i,
  input  elem_t                      wdata_i,
  input  dtype_e                     dtype_i,
  input  logic [$clog2(PWORD_LANES)-1:0] ridx_i,
  output elem_t                      rdata_o
);
  elem_t mem_q [PWORD_LANES];

  always_ff @(posedge clk_i) begin
    if (we_i) mem_q[widx_i] <= wdata_i;
  end

  logic [2:0] lane_bytes;
  assign lane_bytes = rows_of(dtype_i);  // 1, 2 or 4 (the L1 dtypes)

  always_comb begin
    rdata_o = '0;
    for (int unsigned j = 0; j < PWORD_LANES; j++) begin
      unique case (lane_bytes)
        3'd1:    rdata_o[8 * j +: 8]   = mem_q[j][8 * ridx_i +: 8];
        3'd2:    rdata_o[16 * j +: 16] = mem_q[j][16 * ridx_i +: 16];
        default: rdata_o[32 * j +: 32] = mem_q[j][32 * ridx_i +: 32];
      endcase
    end
  end
endmodule
