// DMA word fabric: NI initiators (DMA channels) to NT targets (DDR bridge, the L2 banks, the L1
// of each core), one beat (up to a 64-byte row) per target per cycle. A request goes to the
// target its address names; each target takes one request per cycle, chosen round-robin among
// the initiators that want it. While a DDR write burst holds the bridge's write path (wlock_i),
// only its initiator's writes compete for target 0 (reads still do). Responses come back on the
// initiator's bit of the target's response mask. On-chip targets answer one cycle after the
// grant, so an initiator's responses from them arrive in request order; an initiator must not
// have requests to DDR and to on-chip memory outstanding at the same time.
module ax_word_xbar
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
#(
  parameter int unsigned NI    = 4,
  parameter int unsigned Cores = 1,
  localparam int unsigned NT = 1 + L2_BANKS + Cores,
  localparam int unsigned IdW = (NI > 1) ? $clog2(NI) : 1
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,
  input  logic      [NI-1:0]         i_req_valid_i,
  input  word_req_t [NI-1:0]         i_req_i,
  output logic      [NI-1:0]         i_req_ready_o,
  output logic      [NI-1:0]         i_rsp_valid_o,
  output row_t      [NI-1:0]         i_rsp_data_o,
  output logic      [NT-1:0]         t_req_valid_o,
  output word_req_t [NT-1:0]         t_req_o,
  output logic      [NT-1:0][IdW-1:0] t_req_id_o,
  input  logic      [NT-1:0]         t_req_ready_i,
  input  logic      [NT-1:0][NI-1:0] t_rsp_valid_i,
  input  row_t      [NT-1:0]         t_rsp_data_i,
  input  logic                       wlock_i,
  input  logic      [IdW-1:0]        wlock_id_i
);
  localparam int unsigned TW = $clog2(NT + 1);

  localparam int unsigned L2BankW = $clog2(L2_BANKS);  // L2_BANKS is a power of two
  localparam int unsigned RowSh = $clog2(ROW_BYTES);

  // DDR = target 0, L2 bank b = 1 + b (bank = 64-byte row % L2_BANKS), L1 of core c = 1 +
  // L2_BANKS + c. The DMA checks mem/core before it issues, so the default arm is never used.
  function automatic logic [TW-1:0] target_of(mem_sel_e mem, logic [1:0] core,
                                              logic [L2BankW-1:0] bank);
    unique case (mem)
      MEM_SEL_DDR: return '0;
      MEM_SEL_L2:  return TW'(1 + int'(bank));
      default:     return (int'(core) < int'(Cores)) ? TW'(1 + L2_BANKS + int'(core)) : '0;
    endcase
  endfunction

  logic [NI-1:0][TW-1:0] tgt;
  logic [NT-1:0][NI-1:0] want, gnt;

  always_comb begin
    want = '0;
    for (int unsigned i = 0; i < NI; i++) begin
      tgt[i] = target_of(i_req_i[i].mem, i_req_i[i].core, i_req_i[i].addr[RowSh +: L2BankW]);
      if (i_req_valid_i[i] && !(tgt[i] == '0 && i_req_i[i].we && wlock_i && IdW'(i) != wlock_id_i))
        want[tgt[i]][i] = 1'b1;
    end
  end

  // The arbiters' pointers move only on a grant, so they run on a clock gated by the requests:
  // with no request in flight the fabric's request side is not evaluated (docs/rtl.md).
  logic clk_arb;
  ax_clk_gate u_cg (.clk_i (clk_i), .rst_ni (rst_ni), .en_i (|i_req_valid_i), .clk_o (clk_arb));

  for (genvar t = 0; t < NT; t++) begin : g_tgt
    logic [IdW-1:0] idx;
    logic           any;
    ax_rr_arb #(.N(NI)) u_arb (
      .clk_i   (clk_arb),
      .rst_ni  (rst_ni),
      .req_i   (want[t]),
      .ack_i   (t_req_ready_i[t]),
      .gnt_o   (gnt[t]),
      .idx_o   (idx),
      .valid_o (any)
    );
    assign t_req_valid_o[t] = any;
    assign t_req_o[t]       = i_req_i[idx];
    assign t_req_id_o[t]    = idx;
  end

  always_comb begin
    for (int unsigned i = 0; i < NI; i++) begin
      i_req_ready_o[i] = gnt[tgt[i]][i] && t_req_ready_i[tgt[i]];  // gnt implies want (lock applied)
      i_rsp_valid_o[i] = 1'b0;
      i_rsp_data_o[i]  = '0;
      for (int unsigned t = 0; t < NT; t++) begin
        if (t_rsp_valid_i[t][i]) begin
          i_rsp_valid_o[i] = 1'b1;
          i_rsp_data_o[i]  = t_rsp_data_i[t];
        end
      end
    end
  end
endmodule
