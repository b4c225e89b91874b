// IMC: imc_tiles tiles of 64 x 64 int8 (row k = 64 bytes, lane n = column n) and the residency
// state of common/ref Imc: matrix_id, a valid bit per tile, the stale-read counter. A LoadIMC
// begins a residency (a new matrix_id clears every valid bit; the data stays) and writes one
// row per cycle; the MVM reads a whole tile per cycle and reports whether it was stale.
module ax_imc
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
(
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 clr_i,          // soft reset: residency 0, nothing valid
  // LoadIMC side
  input  logic                 begin_i,        // begin a residency of begin_id_i
  input  logic [7:0]           begin_id_i,
  input  logic                 wr_valid_i,
  input  logic [TILE_AW-1:0]   wr_tile_i,
  input  logic [5:0]           wr_row_i,
  input  row_t                 wr_data_i,
  input  logic                 set_valid_i,    // the tile's last row: it becomes valid
  // MVM side
  input  logic [TILE_AW-1:0]   rd_tile_i,
  input  logic [7:0]           rd_id_i,
  output logic [IMC_TILE_ROWS*ROW_BITS-1:0] rd_data_o,
  input  logic                 rd_count_i,     // a tile-op used rd_tile_i: count it if stale
  // status
  output logic [7:0]           matrix_id_o,
  output logic [7:0]           valid_tiles_o,
  output logic                 stale_o,
  output logic [31:0]          stale_reads_o
);
  localparam int unsigned TileBits = IMC_TILE_ROWS * ROW_BITS;

  logic [TileBits-1:0]  mem_q [IMC_TILES];
  logic [IMC_TILES-1:0] valid_q, valid_d;
  logic [7:0]           id_q, id_d, cnt_q, cnt_d;
  logic [31:0]          stale_q, stale_d;
  logic                 stale_flag_q, stale_flag_d, is_stale;

  assign is_stale = (rd_id_i != id_q) || !valid_q[rd_tile_i];

  always_comb begin
    valid_d      = valid_q;
    id_d         = id_q;
    cnt_d        = cnt_q;
    stale_d      = stale_q;
    stale_flag_d = stale_flag_q;
    if (begin_i && begin_id_i != id_q) begin
      valid_d = '0;
      id_d    = begin_id_i;
      cnt_d   = '0;
    end
    if (set_valid_i && !valid_d[wr_tile_i]) begin
      valid_d[wr_tile_i] = 1'b1;
      cnt_d              = cnt_d + 8'd1;
    end
    if (rd_count_i && is_stale) begin
      stale_d      = stale_q + 32'd1;
      stale_flag_d = 1'b1;
    end
    if (clr_i) begin
      valid_d      = '0;
      id_d         = '0;
      cnt_d        = '0;
      stale_d      = '0;
      stale_flag_d = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q      <= '0;
      id_q         <= '0;
      cnt_q        <= '0;
      stale_q      <= '0;
      stale_flag_q <= 1'b0;
    end else begin
      valid_q      <= valid_d;
      id_q         <= id_d;
      cnt_q        <= cnt_d;
      stale_q      <= stale_d;
      stale_flag_q <= stale_flag_d;
    end
  end

  always_ff @(posedge clk_i) begin
    if (wr_valid_i) mem_q[wr_tile_i][ROW_BITS * wr_row_i +: ROW_BITS] <= wr_data_i;
  end

  assign rd_data_o     = mem_q[rd_tile_i];
  assign matrix_id_o   = id_q;
  assign valid_tiles_o = cnt_q;
  assign stale_o       = stale_flag_q;
  assign stale_reads_o = stale_q;
endmodule
