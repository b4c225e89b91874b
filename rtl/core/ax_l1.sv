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
  localparam int unsigned NP = L1P_UNITS + 1;

  logic     [NP-1:0] m_valid, m_gnt, m_rsp;
  mem_req_t [NP-1:0] m_req;
  row_t     [NP-1:0] m_rdata;

  logic     wp_valid, wp_gnt;
  mem_req_t wp_req;
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
    .m_rdata_i     (m_rdata[L1P_WORD])
  );

  // Debug access: only when the fabric does not ask this cycle.
  mem_req_t dbg_req;
  logic     dbg_rd_q;
  logic [3:0] dbg_word_q;
  always_comb begin
    dbg_req       = '0;
    dbg_req.we    = dbg_we_i;
    dbg_req.row   = MEM_ROW_AW'(dbg_addr_i >> $clog2(ROW_BYTES));
    dbg_req.be    = row_be_t'(64'hF) << (4 * dbg_addr_i[5:2]);
    dbg_req.wdata = {(ROW_BITS / 32){dbg_wdata_i}};
  end

  always_comb begin
    m_valid                = {1'b0, req_valid_i};
    m_req                  = {dbg_req, req_i};
    m_valid[L1P_WORD]      = wp_valid || dbg_valid_i;
    if (wp_valid) m_req[L1P_WORD] = wp_req;
  end
  assign wp_gnt    = m_gnt[L1P_WORD] && wp_valid;
  assign dbg_gnt_o = m_gnt[L1P_WORD] && !wp_valid && dbg_valid_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      dbg_rd_q   <= 1'b0;
      dbg_word_q <= '0;
    end else begin
      dbg_rd_q   <= dbg_gnt_o && !dbg_we_i;
      dbg_word_q <= dbg_addr_i[5:2];
    end
  end
  assign dbg_rsp_valid_o = dbg_rd_q;
  assign dbg_rdata_o     = m_rdata[L1P_WORD][32*dbg_word_q +: 32];

  ax_banked_mem #(
    .NP    (NP),
    .Banks (L1_BANKS),
    .Rows  (Rows)
  ) u_mem (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .req_valid_i (m_valid),
    .req_i       (m_req),
    .gnt_o       (m_gnt),
    .rsp_valid_o (m_rsp),
    .rdata_o     (m_rdata)
  );

  assign gnt_o       = m_gnt[L1P_UNITS-1:0];
  assign rsp_valid_o = m_rsp[L1P_UNITS-1:0];
  assign rdata_o     = m_rdata[L1P_UNITS-1:0];

  logic unused;
  assign unused = m_rsp[L1P_WORD];
endmodule
