// Answers the register bus for a tile whose registers decode combinationally (rtl/README.md):
// act_o marks the first cycle of a request (side effects happen at that edge, once); a write is
// answered in that cycle, a read one cycle later with the data latched at act_o — or, for a
// read marked late_i (an SRAM window), with late_data_i, which the SRAM delivers that cycle.
module ax_reg_resp
  import ax_rtl_pkg::*;
(
  input  logic     clk_i,
  input  logic     rst_ni,
  input  logic     reg_valid_i,
  input  reg_req_t reg_req_i,
  input  logic     hit_i,        // combinational decode of reg_req_i
  input  word_t    rdata_i,      // combinational read data
  input  logic     late_i,       // this read's data comes from late_data_i next cycle
  input  word_t    late_data_i,
  output logic     act_o,
  output logic     rsp_valid_o,
  output logic     rsp_hit_o,
  output word_t    rsp_rdata_o
);
  logic  pend_q, hit_q, late_q;
  word_t rdata_q;

  assign act_o       = reg_valid_i && !pend_q;
  assign rsp_valid_o = reg_valid_i && (pend_q || reg_req_i.we);
  assign rsp_hit_o   = pend_q ? hit_q : hit_i;
  assign rsp_rdata_o = late_q ? late_data_i : rdata_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pend_q  <= 1'b0;
      hit_q   <= 1'b0;
      late_q  <= 1'b0;
      rdata_q <= '0;
    end else begin
      pend_q <= act_o && !reg_req_i.we;
      if (act_o) begin
        hit_q   <= hit_i;
        late_q  <= late_i && hit_i;
        rdata_q <= hit_i ? rdata_i : '0;
      end
    end
  end

  logic unused;
  assign unused = ^{reg_req_i.addr, reg_req_i.wdata};
endmodule
