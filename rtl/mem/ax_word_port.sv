// Adapts a DMA word-fabric target (one 32-bit word per cycle) to a row port of a banked memory:
// the word becomes a 4-byte-enable row write or a row read whose word is selected on return.
// Every request is answered one cycle after its grant (read data or write ack) on the
// requesting initiator's response bit.
module ax_word_port
  import ax_rtl_pkg::*;
#(
  parameter int unsigned NI = 4,
  localparam int unsigned IdW = (NI > 1) ? $clog2(NI) : 1
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  // fabric target side
  input  logic            t_req_valid_i,
  input  word_req_t       t_req_i,
  input  logic [IdW-1:0]  t_req_id_i,
  output logic            t_req_ready_o,
  output logic [NI-1:0]   t_rsp_valid_o,
  output word_t           t_rsp_data_o,
  // memory row port
  output logic            m_req_valid_o,
  output mem_req_t        m_req_o,
  input  logic            m_gnt_i,
  input  row_t            m_rdata_i
);
  logic           rsp_q;
  logic [IdW-1:0] rsp_id_q;
  logic [3:0]     rsp_word_q;

  assign m_req_valid_o = t_req_valid_i;
  assign t_req_ready_o = m_gnt_i;

  always_comb begin
    m_req_o       = '0;
    m_req_o.we    = t_req_i.we;
    m_req_o.row   = MEM_ROW_AW'(t_req_i.addr >> $clog2(ROW_BYTES));
    m_req_o.be    = row_be_t'(64'hF) << (4 * t_req_i.addr[5:2]);
    m_req_o.wdata = {(ROW_BITS / 32){t_req_i.wdata}};
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rsp_q      <= 1'b0;
      rsp_id_q   <= '0;
      rsp_word_q <= '0;
    end else begin
      rsp_q      <= t_req_valid_i && m_gnt_i;
      rsp_id_q   <= t_req_id_i;
      rsp_word_q <= t_req_i.addr[5:2];
    end
  end

  always_comb begin
    t_rsp_valid_o = '0;
    if (rsp_q) t_rsp_valid_o[rsp_id_q] = 1'b1;
  end
  assign t_rsp_data_o = m_rdata_i[32*rsp_word_q +: 32];

  logic unused;
  assign unused = ^{t_req_i.mem, t_req_i.core};  // the fabric already routed on them
endmodule
