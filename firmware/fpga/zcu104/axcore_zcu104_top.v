// Vivado top for the ZCU104 block design: axcore_top (unchanged) with Xilinx interface naming, so
// `create_bd_cell -type module -reference axcore_zcu104_top` infers two AXI interfaces, a clock and
// a reset:
//   s_axi  AXI4-Lite slave, the host register window (col << 25 | row << 20 | offset; 25 address
//          bits = the 32 MiB window build.tcl assigns, so the interconnect strips the base address)
//   m_axi  AXI4 master to DDR (single beats, 32-bit data; the PS HP port's width converter widens)
//   aclk / aresetn, busy (the core is working; for an LED or an ILA).
// Plain Verilog-2001 on purpose: a Vivado module reference's top file may not be SystemVerilog
// (the SystemVerilog files below it are fine). AXI signals the core does not have are inputs left
// unused (AxPROT on the slave) or constant outputs (lock 0, cache 0011 = normal non-cacheable
// bufferable, prot 000, qos 0). The reset is synchronised here: asserted asynchronously,
// released two aclk edges later (axcore.xdc cuts the path into it).
// Lint: verilator --lint-only -Wall <pkg.sv> -f rtl/axcore_top.f <this file> --top-module axcore_zcu104_top
// (test firmware_zcu104_top_lint); a width change of DDR_ADDR_BITS in spec/ fails it (WIDTH).
module axcore_zcu104_top #(
  parameter integer C_S_AXI_ADDR_WIDTH = 25,
  parameter integer C_M_AXI_ADDR_WIDTH = 40,  // spec/axcore.yaml ddr_addr_bits
  parameter integer C_M_AXI_ID_WIDTH   = 8,
  // spec/axcore.yaml axi_data_bytes * 8: 512 in the full build, 128 in firmware/fpga/small.yaml's
  parameter integer C_M_AXI_DATA_WIDTH = 512
) (
  (* X_INTERFACE_INFO = "xilinx.com:signal:clock:1.0 aclk CLK" *)
  (* X_INTERFACE_PARAMETER = "ASSOCIATED_BUSIF s_axi:m_axi, ASSOCIATED_RESET aresetn, FREQ_HZ 150000000" *)
  input  wire                          aclk,
  (* X_INTERFACE_INFO = "xilinx.com:signal:reset:1.0 aresetn RST" *)
  (* X_INTERFACE_PARAMETER = "POLARITY ACTIVE_LOW" *)
  input  wire                          aresetn,

  // AXI4-Lite slave: host register window
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axi AWADDR" *)
  (* X_INTERFACE_PARAMETER = "XIL_INTERFACENAME s_axi, PROTOCOL AXI4LITE, DATA_WIDTH 32, ADDR_WIDTH 25, READ_WRITE_MODE READ_WRITE, NUM_READ_OUTSTANDING 1, NUM_WRITE_OUTSTANDING 1, FREQ_HZ 150000000" *)
  input  wire [C_S_AXI_ADDR_WIDTH-1:0] s_axi_awaddr,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axi AWPROT" *)
  input  wire [2:0]                    s_axi_awprot,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axi AWVALID" *)
  input  wire                          s_axi_awvalid,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axi AWREADY" *)
  output wire                          s_axi_awready,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axi WDATA" *)
  input  wire [31:0]                   s_axi_wdata,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axi WSTRB" *)
  input  wire [3:0]                    s_axi_wstrb,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axi WVALID" *)
  input  wire                          s_axi_wvalid,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axi WREADY" *)
  output wire                          s_axi_wready,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axi BRESP" *)
  output wire [1:0]                    s_axi_bresp,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axi BVALID" *)
  output wire                          s_axi_bvalid,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axi BREADY" *)
  input  wire                          s_axi_bready,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axi ARADDR" *)
  input  wire [C_S_AXI_ADDR_WIDTH-1:0] s_axi_araddr,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axi ARPROT" *)
  input  wire [2:0]                    s_axi_arprot,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axi ARVALID" *)
  input  wire                          s_axi_arvalid,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axi ARREADY" *)
  output wire                          s_axi_arready,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axi RDATA" *)
  output wire [31:0]                   s_axi_rdata,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axi RRESP" *)
  output wire [1:0]                    s_axi_rresp,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axi RVALID" *)
  output wire                          s_axi_rvalid,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axi RREADY" *)
  input  wire                          s_axi_rready,

  // AXI4 master: DDR
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi AWID" *)
  (* X_INTERFACE_PARAMETER = "XIL_INTERFACENAME m_axi, PROTOCOL AXI4, DATA_WIDTH 32, ADDR_WIDTH 40, ID_WIDTH 8, READ_WRITE_MODE READ_WRITE, MAX_BURST_LENGTH 1, NUM_READ_OUTSTANDING 8, NUM_WRITE_OUTSTANDING 8, HAS_LOCK 1, HAS_CACHE 1, HAS_PROT 1, HAS_QOS 1, HAS_REGION 0, HAS_BURST 1, SUPPORTS_NARROW_BURST 0, FREQ_HZ 150000000" *)
  output wire [C_M_AXI_ID_WIDTH-1:0]   m_axi_awid,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi AWADDR" *)
  output wire [C_M_AXI_ADDR_WIDTH-1:0] m_axi_awaddr,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi AWLEN" *)
  output wire [7:0]                    m_axi_awlen,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi AWSIZE" *)
  output wire [2:0]                    m_axi_awsize,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi AWBURST" *)
  output wire [1:0]                    m_axi_awburst,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi AWLOCK" *)
  output wire                          m_axi_awlock,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi AWCACHE" *)
  output wire [3:0]                    m_axi_awcache,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi AWPROT" *)
  output wire [2:0]                    m_axi_awprot,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi AWQOS" *)
  output wire [3:0]                    m_axi_awqos,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi AWVALID" *)
  output wire                          m_axi_awvalid,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi AWREADY" *)
  input  wire                          m_axi_awready,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi WDATA" *)
  output wire [C_M_AXI_DATA_WIDTH-1:0] m_axi_wdata,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi WSTRB" *)
  output wire [C_M_AXI_DATA_WIDTH/8-1:0] m_axi_wstrb,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi WLAST" *)
  output wire                          m_axi_wlast,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi WVALID" *)
  output wire                          m_axi_wvalid,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi WREADY" *)
  input  wire                          m_axi_wready,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi BID" *)
  input  wire [C_M_AXI_ID_WIDTH-1:0]   m_axi_bid,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi BRESP" *)
  input  wire [1:0]                    m_axi_bresp,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi BVALID" *)
  input  wire                          m_axi_bvalid,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi BREADY" *)
  output wire                          m_axi_bready,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi ARID" *)
  output wire [C_M_AXI_ID_WIDTH-1:0]   m_axi_arid,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi ARADDR" *)
  output wire [C_M_AXI_ADDR_WIDTH-1:0] m_axi_araddr,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi ARLEN" *)
  output wire [7:0]                    m_axi_arlen,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi ARSIZE" *)
  output wire [2:0]                    m_axi_arsize,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi ARBURST" *)
  output wire [1:0]                    m_axi_arburst,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi ARLOCK" *)
  output wire                          m_axi_arlock,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi ARCACHE" *)
  output wire [3:0]                    m_axi_arcache,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi ARPROT" *)
  output wire [2:0]                    m_axi_arprot,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi ARQOS" *)
  output wire [3:0]                    m_axi_arqos,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi ARVALID" *)
  output wire                          m_axi_arvalid,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi ARREADY" *)
  input  wire                          m_axi_arready,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi RID" *)
  input  wire [C_M_AXI_ID_WIDTH-1:0]   m_axi_rid,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi RDATA" *)
  input  wire [C_M_AXI_DATA_WIDTH-1:0] m_axi_rdata,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi RRESP" *)
  input  wire [1:0]                    m_axi_rresp,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi RLAST" *)
  input  wire                          m_axi_rlast,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi RVALID" *)
  input  wire                          m_axi_rvalid,
  (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 m_axi RREADY" *)
  output wire                          m_axi_rready,

  output wire                          busy
);
  // Reset synchroniser: asynchronous assert, release after two aclk edges.
  (* ASYNC_REG = "TRUE" *) reg [1:0] rst_sync_q;
  always @(posedge aclk or negedge aresetn) begin
    if (!aresetn) rst_sync_q <= 2'b00;
    else          rst_sync_q <= {rst_sync_q[0], 1'b1};
  end

  // The slave's protection bits and the free-running cycle counter have no use on the board.
  /* verilator lint_off UNUSEDSIGNAL */
  wire [2:0]  unused_prot = s_axi_awprot | s_axi_arprot;
  wire [63:0] unused_cycle;
  /* verilator lint_on UNUSEDSIGNAL */

  assign m_axi_awlock  = 1'b0;
  assign m_axi_arlock  = 1'b0;
  assign m_axi_awcache = 4'b0011;
  assign m_axi_arcache = 4'b0011;
  assign m_axi_awprot  = 3'b000;
  assign m_axi_arprot  = 3'b000;
  assign m_axi_awqos   = 4'b0000;
  assign m_axi_arqos   = 4'b0000;

  axcore_top u_core (
    .clk_i       (aclk),
    .rst_ni      (rst_sync_q[1]),
    .s_awvalid_i (s_axi_awvalid),
    .s_awready_o (s_axi_awready),
    .s_awaddr_i  ({{(32 - C_S_AXI_ADDR_WIDTH){1'b0}}, s_axi_awaddr}),
    .s_wvalid_i  (s_axi_wvalid),
    .s_wready_o  (s_axi_wready),
    .s_wdata_i   (s_axi_wdata),
    .s_wstrb_i   (s_axi_wstrb),
    .s_bvalid_o  (s_axi_bvalid),
    .s_bready_i  (s_axi_bready),
    .s_bresp_o   (s_axi_bresp),
    .s_arvalid_i (s_axi_arvalid),
    .s_arready_o (s_axi_arready),
    .s_araddr_i  ({{(32 - C_S_AXI_ADDR_WIDTH){1'b0}}, s_axi_araddr}),
    .s_rvalid_o  (s_axi_rvalid),
    .s_rready_i  (s_axi_rready),
    .s_rdata_o   (s_axi_rdata),
    .s_rresp_o   (s_axi_rresp),
    .m_awvalid_o (m_axi_awvalid),
    .m_awready_i (m_axi_awready),
    .m_awid_o    (m_axi_awid),
    .m_awaddr_o  (m_axi_awaddr),
    .m_awlen_o   (m_axi_awlen),
    .m_awsize_o  (m_axi_awsize),
    .m_awburst_o (m_axi_awburst),
    .m_wvalid_o  (m_axi_wvalid),
    .m_wready_i  (m_axi_wready),
    .m_wdata_o   (m_axi_wdata),
    .m_wstrb_o   (m_axi_wstrb),
    .m_wlast_o   (m_axi_wlast),
    .m_bvalid_i  (m_axi_bvalid),
    .m_bready_o  (m_axi_bready),
    .m_bid_i     (m_axi_bid),
    .m_bresp_i   (m_axi_bresp),
    .m_arvalid_o (m_axi_arvalid),
    .m_arready_i (m_axi_arready),
    .m_arid_o    (m_axi_arid),
    .m_araddr_o  (m_axi_araddr),
    .m_arlen_o   (m_axi_arlen),
    .m_arsize_o  (m_axi_arsize),
    .m_arburst_o (m_axi_arburst),
    .m_rvalid_i  (m_axi_rvalid),
    .m_rready_o  (m_axi_rready),
    .m_rid_i     (m_axi_rid),
    .m_rdata_i   (m_axi_rdata),
    .m_rresp_i   (m_axi_rresp),
    .m_rlast_i   (m_axi_rlast),
    .busy_o      (busy),
    .cycle_o     (unused_cycle)
  );
endmodule
