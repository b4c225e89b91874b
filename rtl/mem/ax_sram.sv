// Single-port SRAM with byte enables and a registered read (data in the cycle after the
// request). Contents have no reset (the host loads memories through DMA or DBG_MEM; no DPI
// backdoor, so several Verilated models can share one executable). Written in the byte-lane
// form synthesis tools map to block RAM (a write enable per byte lane, constant slices; a
// read-modify-write of the word makes yosys use flip-flops).
module ax_sram #(
  parameter int unsigned Width = 512,
  parameter int unsigned Depth = 1024,
  localparam int unsigned AW = (Depth > 1) ? $clog2(Depth) : 1,
  localparam int unsigned BeW = Width / 8
) (
  input  logic             clk_i,
  input  logic             req_i,
  input  logic             we_i,
  input  logic [AW-1:0]    addr_i,
  input  logic [BeW-1:0]   be_i,
  input  logic [Width-1:0] wdata_i,
  output logic [Width-1:0] rdata_o
);
  logic [Width-1:0] mem_q [Depth];
  logic [Width-1:0] rdata_q;

  always_ff @(posedge clk_i) begin
    if (req_i) begin
      if (we_i) begin
        for (int unsigned b = 0; b < BeW; b++) begin
          if (be_i[b]) mem_q[addr_i][8*b +: 8] <= wdata_i[8*b +: 8];
        end
      end else begin
        rdata_q <= mem_q[addr_i];
      end
    end
  end
  assign rdata_o = rdata_q;

endmodule
