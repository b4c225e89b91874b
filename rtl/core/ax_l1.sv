// The core's L1: l1_banks single-port banks interleaved on the 64-byte row (bank = row %
// l1_banks) with fixed priority over its row ports, lowest index first (ax_core_pkg L1P_*:
// ODR > IFD0 > IFD1 > LoadIMC > DWPU weights > word port). The word port serves the DMA word
// fabric (one 32-bit word per request, answered one cycle after the grant) and, when the
// fabric is idle, the host's DBG_MEM_DATA accesses.
module ax_l1
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
  import ax_core_pkg::*;
#(
  parameter int unsigned NI   = 4,            // fabric initiators (response mask width)
  parameter int unsigned Rows = L1_ROWS,
  localparam int unsigned IdW = (NI > 1) ? $clog2(NI) : 1
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,
  // unit row ports
  input  logic     [L1P_UNITS-1:0]   req_valid_i,
  input  mem_req_t [L1P_UNITS-1:0]   req_i,
  output logic     [L1P_UNITS-1:0]   gnt_o,
  output logic     [L1P_UNITS-1:0]   rsp_valid_o,
  output row_t     [L1P_UNITS-1:0]   rdata_o,
  // word fabric target
  input  logic                       w_req_valid_i,
  input  word_req_t                  w_req_i,
  input  logic [IdW-1:0]             w_req_id_i,
  output logic                       w_req_ready_o,
  output logic [NI-1:0]              w_rsp_valid_o,
  output row_t                       w_rsp_data_o,
  // host debug word (byte address in L1, word aligned)
  input  logic                       dbg_valid_i,
  input  logic                       dbg_we_i,
  input  logic [31:0]                dbg_addr_i,
  input  word_t                      dbg_wdata_i,
  output logic                       dbg_gnt_o,
  output logic                       dbg_rsp_valid_o,
  output word_t                      dbg_rdata_o
);
  localparam int unsigned NU       = L1P_UNITS;
  localparam int unsigned Banks    = L1_BANKS;  // a power of two (spec)
  localparam int unsigned BankW    = (Banks > 1) ? $clog2(Banks) : 1;
  localparam int unsigned SelW     = (Banks > 1) ? $clog2(Banks) : 0;
  localparam int unsigned BankRows = Rows / Banks;

  function automatic logic [BankW-1:0] bank_of(logic [BankW-1:0] row_lo);  // the row's low bits
    return (Banks > 1) ? row_lo : '0;
  endfunction

  logic     wp_valid, wp_gnt;
  mem_req_t wp_req;
  row_t     w_rdata;
  ax_word_port #(.NI(NI)) u_word (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .t_req_valid_i (w_req_valid_i),
    .t_req_i       (w_req_i),
    .t_req_id_i    (w_req_id_i),
    .t_req_ready_o (w_req_ready_o),
    .t_rsp_valid_o (w_rsp_valid_o),
    .t_rsp_data_o  (w_rsp_data_o),
    .m_req_valid_o (wp_valid),
    .m_req_o       (wp_req),
    .m_gnt_i       (wp_gnt),
    .m_rdata_i     (w_rdata)
  );

  // Unit ports: fixed priority, lowest index first, from the units' requests alone (the word
  // slot has the lowest priority, so it never changes a unit's grant): this logic and every
  // unit's logic that reads its grant run in the tile's clock cycles only.
  logic [NU-1:0][BankW-1:0] u_bank, u_rsp_bank_q;
  logic [NU-1:0]            u_rsp_q;
  logic [Banks-1:0]         u_busy;
  mem_req_t [Banks-1:0]     u_sel;
  always_comb begin
    u_busy = '0;
    u_sel  = '0;
    gnt_o  = '0;
    for (int unsigned p = 0; p < NU; p++) begin
      u_bank[p] = bank_of(req_i[p].row[BankW-1:0]);
      if (req_valid_i[p] && !u_busy[u_bank[p]]) begin
        gnt_o[p]          = 1'b1;
        u_busy[u_bank[p]] = 1'b1;
        u_sel[u_bank[p]]  = req_i[p];
      end
    end
  end

  // The word slot: the fabric's word port, or the host's debug access when the fabric does not
  // ask this cycle; granted when no unit port wants its bank.
  mem_req_t   dbg_req, w_sel;
  logic       w_valid, w_gnt, dbg_rd_q;
  logic [BankW-1:0] w_bank, w_rsp_bank_q;
  logic [3:0] dbg_word_q;
  always_comb begin
    dbg_req       = '0;
    dbg_req.we    = dbg_we_i;
    dbg_req.row   = MEM_ROW_AW'(dbg_addr_i >> $clog2(ROW_BYTES));
    dbg_req.be    = row_be_t'(64'hF) << (4 * dbg_addr_i[5:2]);
    dbg_req.wdata = {(ROW_BITS / 32){dbg_wdata_i}};
    w_sel         = wp_valid ? wp_req : dbg_req;
  end
  assign w_valid   = wp_valid || dbg_valid_i;
  assign w_bank    = bank_of(w_sel.row[BankW-1:0]);
  assign w_gnt     = w_valid && !u_busy[w_bank];
  assign wp_gnt    = w_gnt && wp_valid;
  assign dbg_gnt_o = w_gnt && !wp_valid && dbg_valid_i;

  row_t [Banks-1:0] bank_rdata;
  for (genvar b = 0; b < Banks; b++) begin : g_bank
    ax_l1_bank #(.Depth(BankRows), .SelW(SelW)) u_mem (
      .clk_i   (clk_i),
      .u_req_i (u_busy[b]),
      .u_i     (u_sel[b]),
      .w_req_i (w_gnt && w_bank == BankW'(b)),
      .w_i     (w_sel),
      .rdata_o (bank_rdata[b])
    );
  end

  // Read data in the cycle after the grant, from the bank the port asked.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      u_rsp_q      <= '0;
      u_rsp_bank_q <= '0;
      w_rsp_bank_q <= '0;
      dbg_rd_q     <= 1'b0;
      dbg_word_q   <= '0;
    end else begin
      for (int unsigned p = 0; p < NU; p++) u_rsp_q[p] <= gnt_o[p] && !req_i[p].we;
      u_rsp_bank_q <= u_bank;
      w_rsp_bank_q <= w_bank;
      dbg_rd_q     <= dbg_gnt_o && !dbg_we_i;
      dbg_word_q   <= dbg_addr_i[5:2];
    end
  end
  assign rsp_valid_o = u_rsp_q;
  always_comb begin
    for (int unsigned p = 0; p < NU; p++) rdata_o[p] = bank_rdata[u_rsp_bank_q[p]];
  end
  assign w_rdata         = bank_rdata[w_rsp_bank_q];
  assign dbg_rsp_valid_o = dbg_rd_q;
  assign dbg_rdata_o     = w_rdata[32*dbg_word_q +: 32];
endmodule
