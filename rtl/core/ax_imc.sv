// IMC: imc_tiles tiles of 64 x 64 int8 (row k = 64 bytes, lane n = column n) and the residency
// state of common/ref Imc: matrix_id, a valid bit per tile, the stale-read counter. A LoadIMC
// begins a residency (a new matrix_id clears every valid bit; the data stays) and writes one
// row per cycle. The MVM's read port gives Rows tile rows per cycle: a tile-op started with
// rd_count_i in cycle p (tile rd_tile_i; counted if stale) has rows [g*Rows, (g+1)*Rows) in
// rd_data_o during cycle p+1+g, g < 64/Rows (the IMC walks the groups itself).
// The array is a block RAM as synthesis tools infer it: words of Rows rows (word = tile * 64/Rows
// + group), one write port with a write enable per row (constant slices), one read port with a
// registered read, no reset; a read copies Rows rows, never a whole tile more than once.
module ax_imc
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
#(
  parameter int unsigned Rows = MVM_ROWS_PER_CYCLE
) (
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
  output logic [IMC_TILE_ROWS*ROW_BITS-1:0] rd_data_o,  // rows 0..Rows-1 used, the rest 0
  input  logic                 rd_count_i,     // a tile-op of rd_tile_i starts: read it, count if stale
  // status
  output logic [7:0]           matrix_id_o,
  output logic [7:0]           valid_tiles_o,
  output logic                 stale_o,
  output logic [31:0]          stale_reads_o
);
  localparam int unsigned Groups = IMC_TILE_ROWS / Rows;   // read cycles per tile-op
  localparam int unsigned GW     = (Groups > 1) ? $clog2(Groups) : 1;
  localparam int unsigned SW     = $clog2(Rows);            // row within a word
  localparam int unsigned Words  = IMC_TILES * Groups;
  localparam int unsigned AW     = (Words > 1) ? $clog2(Words) : 1;
  localparam int unsigned WordBits = Rows * ROW_BITS;
`ifndef SYNTHESIS
  initial assert (Rows >= 4 && Rows <= IMC_TILE_ROWS && (Rows & (Rows - 1)) == 0)
    else $fatal(1, "ax_imc: Rows (mvm_rows_per_cycle) must be a power of two in [4, 64]");
`endif

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

  // word addresses: write (tile, row / Rows), read (tile, group)
  logic          rd_en;
  logic [AW-1:0] waddr, raddr;
  logic [SW-1:0] wsel;
  assign wsel = wr_row_i[SW-1:0];
  if (Groups == 1) begin : g_one
    assign rd_en = rd_count_i;
    assign raddr = AW'(rd_tile_i);
    assign waddr = AW'(wr_tile_i);
  end else begin : g_groups
    // groups 1 .. Groups-1 of the tile-op started by rd_count_i, one per cycle
    logic               more_q;
    logic [GW-1:0]      grp_q;
    logic [TILE_AW-1:0] tile_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        more_q <= 1'b0;
        grp_q  <= '0;
        tile_q <= '0;
      end else if (rd_count_i) begin
        more_q <= 1'b1;
        grp_q  <= GW'(1);
        tile_q <= rd_tile_i;
      end else if (more_q) begin
        more_q <= (grp_q != GW'(Groups - 1));
        grp_q  <= grp_q + GW'(1);
      end
    end
    assign rd_en = rd_count_i || more_q;
    assign raddr = rd_count_i ? AW'({rd_tile_i, GW'(0)}) : AW'({tile_q, grp_q});
    assign waddr = AW'({wr_tile_i, wr_row_i[5:SW]});
  end

  // The read register has the port's width (rows Rows.. always 0; synthesis drops those
  // constant flip-flops), so the port is the register itself: with a narrower register and a
  // zero-extending assign, Verilator re-expands a 32 Kibit temporary at every use of the port
  // in the MVM's lane processes (512 copies per cycle at Rows = 8).
  logic [WordBits-1:0] mem_q [Words];
  logic [IMC_TILE_ROWS*ROW_BITS-1:0] rdata_q;
  always_ff @(posedge clk_i) begin
    for (int unsigned r = 0; r < Rows; r++) begin
      if (wr_valid_i && wsel == SW'(r)) mem_q[waddr][ROW_BITS*r +: ROW_BITS] <= wr_data_i;
    end
    if (rd_en) rdata_q <= (IMC_TILE_ROWS * ROW_BITS)'(mem_q[raddr]);
  end
  assign rd_data_o = rdata_q;
  assign matrix_id_o   = id_q;
  assign valid_tiles_o = cnt_q;
  assign stale_o       = stale_flag_q;
  assign stale_reads_o = stale_q;
endmodule
