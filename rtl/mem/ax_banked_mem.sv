// Banked row memory (L1, L2): Banks single-port SRAMs interleaved on the row index
// (bank = row % Banks, entry = row / Banks). Each cycle every bank serves one request; ports
// are served in fixed priority, lowest index first, and a port that loses its bank is simply
// not granted (it keeps its request and retries) — a conflict stalls, never corrupts.
// Read data comes back on the port in the cycle after its grant.
module ax_banked_mem
  import ax_rtl_pkg::*;
#(
  parameter int unsigned NP    = 2,
  parameter int unsigned Banks = 8,
  parameter int unsigned Rows  = 1024,
  localparam int unsigned BankRows = Rows / Banks,
  localparam int unsigned BankW = (Banks > 1) ? $clog2(Banks) : 1,
  localparam int unsigned EntryW = (BankRows > 1) ? $clog2(BankRows) : 1,
  localparam int unsigned SelW = (Banks > 1) ? $clog2(Banks) : 0
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic     [NP-1:0]     req_valid_i,
  input  mem_req_t [NP-1:0]     req_i,
  output logic     [NP-1:0]     gnt_o,
  output logic     [NP-1:0]     rsp_valid_o,
  output row_t     [NP-1:0]     rdata_o
);
`ifndef SYNTHESIS
  initial begin
    assert ((Banks & (Banks - 1)) == 0) else $fatal(1, "ax_banked_mem: Banks must be a power of two");
    assert (Rows % Banks == 0) else $fatal(1, "ax_banked_mem: Rows must be a multiple of Banks");
  end
`endif
  logic [NP-1:0][BankW-1:0] bank, rsp_bank_q;
  logic [NP-1:0]            rsp_valid_q;
  logic [Banks-1:0]         bank_req;
  mem_req_t [Banks-1:0]     bank_sel;
  row_t [Banks-1:0]         bank_rdata;

  always_comb begin
    bank_req = '0;
    bank_sel = '0;
    gnt_o    = '0;
    for (int unsigned p = 0; p < NP; p++) begin
      bank[p] = (Banks > 1) ? BankW'(req_i[p].row) : '0;  // low row bits (Banks is 2^n)
      if (req_valid_i[p] && !bank_req[bank[p]]) begin
        gnt_o[p]          = 1'b1;
        bank_req[bank[p]] = 1'b1;
        bank_sel[bank[p]] = req_i[p];
      end
    end
  end

  for (genvar b = 0; b < Banks; b++) begin : g_bank
    logic [EntryW-1:0] entry;
    assign entry = EntryW'(bank_sel[b].row >> SelW);
    ax_sram #(
      .Width (ROW_BITS),
      .Depth (BankRows)
    ) u_sram (
      .clk_i   (clk_i),
      .req_i   (bank_req[b]),
      .we_i    (bank_sel[b].we),
      .addr_i  (entry),
      .be_i    (bank_sel[b].be),
      .wdata_i (bank_sel[b].wdata),
      .rdata_o (bank_rdata[b])
    );
  end

  logic [NP-1:0] rd_gnt;
  always_comb begin
    for (int unsigned p = 0; p < NP; p++) rd_gnt[p] = gnt_o[p] && !req_i[p].we;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rsp_valid_q <= '0;
      rsp_bank_q  <= '0;
    end else begin
      rsp_valid_q <= rd_gnt;
      rsp_bank_q  <= bank;
    end
  end

  assign rsp_valid_o = rsp_valid_q;
  always_comb begin
    for (int unsigned p = 0; p < NP; p++) rdata_o[p] = bank_rdata[rsp_bank_q[p]];
  end
endmodule
