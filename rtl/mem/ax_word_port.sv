// Adapts a DMA fabric target (one beat = up to 16 words of one 64-byte row per cycle) to a row
// port of a banked memory: a write beat becomes a row write with the beat's byte enables, a
// read beat a row read whose whole row is returned (the channel picks its words). Every
// request is answered one cycle after its grant (read data or write ack) on the requesting
// initiator's response bit.
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
  output row_t            t_rsp_data_o,
  // memory row port
  output logic            m_req_valid_o,
  output mem_req_t        m_req_o,
  input  logic            m_gnt_i,
  input  row_t            m_rdata_i
);
  logic           rsp_q;
  logic [IdW-1:0] rsp_id_q;

  assign m_req_valid_o = t_req_valid_i;
  assign t_req_ready_o = m_gnt_i;

  always_comb begin
    m_req_o       = '0;
    m_req_o.we    = t_req_i.we;
    m_req_o.row   = MEM_ROW_AW'(t_req_i.addr >> $clog2(ROW_BYTES));
    m_req_o.be    = beat_be(t_req_i.addr[5:2], t_req_i.nw[4:0]);
    m_req_o.wdata = t_req_i.wdata;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rsp_q    <= 1'b0;
      rsp_id_q <= '0;
    end else begin
      rsp_q    <= t_req_valid_i && m_gnt_i;
      rsp_id_q <= t_req_id_i;
    end
  end

  always_comb begin
    t_rsp_valid_o = '0;
    if (rsp_q) t_rsp_valid_o[rsp_id_q] = 1'b1;
  end
  assign t_rsp_data_o = m_rdata_i;

  logic unused;
  // the fabric already routed on mem/core; on-chip beats carry no burst framing
  assign unused = ^{t_req_i.mem, t_req_i.core, t_req_i.nw[BEAT_NW_W-1:5], t_req_i.rows, t_req_i.bfirst,
                    t_req_i.blast};
endmodule
