/* SPDX-License-Identifier: MIT */
/*
 * The reference for tasshape's Wi-Fi 6 MAC model (docs/validation/wifi6-ns3.md):
 * ns-3's 802.11ax MAC on the scenarios the model is compared on. Not part
 * of the build or CI: tools/validate/wifi6_ns3.sh builds it against
 * Debian's ns-3 (libns3-dev 3.37) and runs it.
 *
 * One access point and N stations, each 1 m from the access point, on one
 * 5 GHz channel; HE single-user PPDUs at a fixed HE-MCS (ConstantRateWifiManager),
 * best-effort EDCA (AIFSN 3, CW 15..1023, no TXOP limit), no RTS/CTS,
 * a 256-frame BlockAck window, A-MPDUs of at most M MPDUs (the A-MPDU byte
 * limit set to M subframes of a 1500-byte IP packet). Saturated UDP:
 * every station sends 1500-byte IP packets to the access point faster than
 * it can, and with --down the access point does the same to the first
 * --down stations. The run warms up for 2 s and counts IP bytes delivered
 * for --duration seconds.
 *
 * Output: one "key=value ..." line: per-station goodput up and down
 * (Mbit/s of IP bytes), data PPDUs and lost ones (no BlockAck or Ack),
 * BlockAckRequests, beacons and their airtime. With --log=FILE, every
 * PSDU sent during the first 200 ms of the measured window, one a line:
 * start (ns), node (0 = AP), kind, MPDUs, bytes, duration (ns).
 */
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/wifi-module.h"

#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <vector>

using namespace ns3;

namespace
{

/* Per node counters (node 0 is the access point). */
struct Counters {
	uint64_t dataPpdus = 0; /* PPDUs carrying QoS data */
	uint64_t dataMpdus = 0;
	uint64_t lost = 0;    /* data PPDUs whose Ack/BlockAck did not come */
	uint64_t bars = 0;    /* BlockAckRequests sent */
	uint64_t beacons = 0; /* beacons sent */
	uint64_t beaconBytes = 0;
	Time beaconAir;
	uint64_t upBytes = 0;	/* IP bytes this station delivered to the access point */
	uint64_t downBytes = 0; /* IP bytes the access point delivered to this station */
};

std::vector<Counters> g_ct;
Time g_from, g_to;
std::ofstream g_log;
Time g_logTo;

bool InWindow()
{
	Time now = Simulator::Now();
	return now >= g_from && now < g_to;
}

const char *Kind(const WifiMacHeader &h)
{
	if (h.IsQosData())
		return "DATA";
	if (h.IsBlockAck())
		return "BA";
	if (h.IsBlockAckReq())
		return "BAR";
	if (h.IsAck())
		return "ACK";
	if (h.IsBeacon())
		return "BEACON";
	if (h.IsCts())
		return "CTS";
	if (h.IsRts())
		return "RTS";
	return "OTHER";
}

void OnPsduTx(uint32_t node, WifiConstPsduMap psdus, WifiTxVector txv, double)
{
	Ptr<const WifiPsdu> psdu = psdus.begin()->second;
	const WifiMacHeader &h = psdu->GetHeader(0);
	Time dur = WifiPhy::CalculateTxDuration(psdus, txv, WIFI_PHY_BAND_5GHZ);

	if (g_log.is_open() && Simulator::Now() >= g_from && Simulator::Now() < g_logTo)
		g_log << Simulator::Now().GetNanoSeconds() << ' ' << node << ' ' << Kind(h) << ' '
		      << psdu->GetNMpdus() << ' ' << psdu->GetSize() << ' ' << dur.GetNanoSeconds()
		      << '\n';
	if (!InWindow())
		return;
	Counters &c = g_ct[node];
	if (h.IsQosData()) {
		c.dataPpdus++;
		c.dataMpdus += psdu->GetNMpdus();
	} else if (h.IsBlockAckReq())
		c.bars++;
	else if (h.IsBeacon()) {
		c.beacons++;
		c.beaconBytes += psdu->GetSize();
		c.beaconAir += dur;
	}
}

void OnPsduTimeout(uint32_t node, uint8_t, Ptr<const WifiPsdu> psdu, const WifiTxVector &)
{
	if (InWindow() && psdu->GetHeader(0).IsQosData())
		g_ct[node].lost++;
}

void OnMpduTimeout(uint32_t node, uint8_t, Ptr<const WifiMpdu> mpdu, const WifiTxVector &)
{
	if (InWindow() && mpdu->GetHeader().IsQosData())
		g_ct[node].lost++;
}

void OnRx(uint32_t node, bool up, Ptr<const Packet> p, const Address &)
{
	if (!InWindow())
		return;
	/* IP bytes: the UDP payload plus the UDP and IPv4 headers. */
	(up ? g_ct[node].upBytes : g_ct[node].downBytes) += p->GetSize() + 28;
}

/* UDP from @from to @to (address @dst): 1500-byte IP packets at @bps, counted for station @sta. */
void AddFlow(Ptr<Node> from, Ptr<Node> to, Ipv4Address dst, uint16_t port, double bps, uint32_t sta,
	     bool up)
{
	PacketSinkHelper sink("ns3::UdpSocketFactory",
			      InetSocketAddress(Ipv4Address::GetAny(), port));
	ApplicationContainer s = sink.Install(to);
	s.Get(0)->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnRx, sta, up));
	s.Start(Seconds(0.5));

	UdpClientHelper client(dst, port);
	client.SetAttribute("MaxPackets", UintegerValue(0xffffffffu));
	client.SetAttribute("PacketSize", UintegerValue(1472));
	client.SetAttribute("Interval", TimeValue(Seconds(1500 * 8 / bps)));
	ApplicationContainer c = client.Install(from);
	c.Start(Seconds(1.0));
}

} // namespace

int main(int argc, char *argv[])
{
	uint32_t stations = 1, bw = 80, mcs = 11, ss = 2, mpdus = 256, down = 0, run = 1;
	bool up = true, bar = true;
	double duration = 10, offered = 0;
	std::string log;

	CommandLine cmd(__FILE__);
	cmd.AddValue("stations", "stations (1..)", stations);
	cmd.AddValue("bw", "channel width, MHz", bw);
	cmd.AddValue("mcs", "HE-MCS", mcs);
	cmd.AddValue("ss", "spatial streams", ss);
	cmd.AddValue("mpdus", "max MPDUs per A-MPDU", mpdus);
	cmd.AddValue("up", "saturated uplink from every station", up);
	cmd.AddValue("down", "saturated downlink to the first DOWN stations", down);
	cmd.AddValue("bar", "explicit BlockAckRequest after a missed BlockAck", bar);
	cmd.AddValue("duration", "measured seconds", duration);
	cmd.AddValue("offered", "offered Mbit/s per flow (0: 1.5 x the channel / flows)", offered);
	cmd.AddValue("run", "RNG run number", run);
	cmd.AddValue("log", "write the PSDUs of the first 200 ms measured to this file", log);
	cmd.Parse(argc, argv);

	RngSeedManager::SetSeed(1);
	RngSeedManager::SetRun(run);
	Config::SetDefault("ns3::QosTxop::UseExplicitBarAfterMissedBlockAck", BooleanValue(bar));
	Config::SetDefault("ns3::WifiMacQueue::MaxSize", QueueSizeValue(QueueSize("4000p")));
	Config::SetDefault("ns3::WifiMacQueue::MaxDelay", TimeValue(Seconds(100)));

	NodeContainer staNodes, apNode;
	staNodes.Create(stations);
	apNode.Create(1);

	YansWifiChannelHelper channel = YansWifiChannelHelper::Default();
	YansWifiPhyHelper phy;
	phy.SetChannel(channel.Create());
	std::ostringstream cs;
	cs << "{0, " << bw << ", BAND_5GHZ, 0}";
	phy.Set("ChannelSettings", StringValue(cs.str()));
	phy.Set("Antennas", UintegerValue(ss));
	phy.Set("MaxSupportedTxSpatialStreams", UintegerValue(ss));
	phy.Set("MaxSupportedRxSpatialStreams", UintegerValue(ss));

	WifiHelper wifi;
	wifi.SetStandard(WIFI_STANDARD_80211ax);
	std::ostringstream mode;
	mode << "HeMcs" << mcs;
	wifi.SetRemoteStationManager(
		"ns3::ConstantRateWifiManager", "DataMode", StringValue(mode.str()), "ControlMode",
		StringValue(mode.str()), "RtsCtsThreshold", UintegerValue(4692480));

	/* M subframes of a 1500-byte IP packet: 4 + 1538 + 2 padding = 1544 bytes each. */
	uint32_t ampdu = mpdus * 1544;
	WifiMacHelper mac;
	Ssid ssid("tasshape");
	mac.SetType("ns3::StaWifiMac", "Ssid", SsidValue(ssid), "BE_MaxAmpduSize",
		    UintegerValue(ampdu));
	NetDeviceContainer staDev = wifi.Install(phy, mac, staNodes);
	mac.SetType("ns3::ApWifiMac", "Ssid", SsidValue(ssid), "BE_MaxAmpduSize",
		    UintegerValue(ampdu));
	NetDeviceContainer apDev = wifi.Install(phy, mac, apNode);
	Config::Set("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/HeConfiguration/GuardInterval",
		    TimeValue(NanoSeconds(800)));
	Config::Set("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/HeConfiguration/MpduBufferSize",
		    UintegerValue(256));

	/* The access point at the origin, the stations on a 1 m circle around it. */
	MobilityHelper mobility;
	Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
	pos->Add(Vector(0, 0, 0));
	for (uint32_t i = 0; i < stations; i++) {
		double a = 2 * M_PI * i / stations;
		pos->Add(Vector(std::cos(a), std::sin(a), 0));
	}
	mobility.SetPositionAllocator(pos);
	mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
	mobility.Install(apNode);
	mobility.Install(staNodes);

	InternetStackHelper stack;
	stack.Install(apNode);
	stack.Install(staNodes);
	Ipv4AddressHelper addr;
	addr.SetBase("192.168.1.0", "255.255.255.0");
	Ipv4InterfaceContainer apIf = addr.Assign(apDev);
	Ipv4InterfaceContainer staIf = addr.Assign(staDev);

	/* Node index 0 = the access point, i + 1 = station i. */
	g_ct.assign(stations + 1, Counters());
	uint32_t flows = (up ? stations : 0) + down;
	double chan = 1200.0 * bw / 80 * ss / 2;
	double bps = (offered > 0 ? offered : 1.5 * chan / flows) * 1e6;
	for (uint32_t i = 0; i < stations && up; i++)
		AddFlow(staNodes.Get(i), apNode.Get(0), apIf.GetAddress(0), 9000 + i, bps, i + 1,
			true);
	for (uint32_t i = 0; i < down && i < stations; i++)
		AddFlow(apNode.Get(0), staNodes.Get(i), staIf.GetAddress(i), 10000 + i, bps, i + 1,
			false);

	std::vector<Ptr<NetDevice>> devs;
	devs.push_back(apDev.Get(0));
	for (uint32_t i = 0; i < stations; i++)
		devs.push_back(staDev.Get(i));
	for (uint32_t n = 0; n < devs.size(); n++) {
		Ptr<WifiNetDevice> d = DynamicCast<WifiNetDevice>(devs[n]);
		d->GetPhy()->TraceConnectWithoutContext("PhyTxPsduBegin",
							MakeBoundCallback(&OnPsduTx, n));
		d->GetMac()->TraceConnectWithoutContext("PsduResponseTimeout",
							MakeBoundCallback(&OnPsduTimeout, n));
		d->GetMac()->TraceConnectWithoutContext("MpduResponseTimeout",
							MakeBoundCallback(&OnMpduTimeout, n));
	}

	g_from = Seconds(2);
	g_to = g_from + Seconds(duration);
	g_logTo = g_from + MilliSeconds(200);
	if (!log.empty())
		g_log.open(log);
	Simulator::Stop(g_to + MilliSeconds(1));
	Simulator::Run();

	std::ostringstream o;
	double total_up = 0, total_down = 0;
	o.setf(std::ios::fixed);
	o.precision(3);
	o << "stations=" << stations << " bw=" << bw << " mcs=" << mcs << " ss=" << ss
	  << " mpdus=" << mpdus << " up=" << up << " down=" << down << " bar=" << bar
	  << " run=" << run;
	for (uint32_t n = 1; n <= stations; n++) {
		total_up += g_ct[n].upBytes * 8 / duration / 1e6;
		total_down += g_ct[n].downBytes * 8 / duration / 1e6;
	}
	o << " up_mbps=" << total_up << " down_mbps=" << total_down;
	for (uint32_t n = 0; n <= stations; n++) {
		const Counters &c = g_ct[n];
		o << " n" << n << "_ppdus=" << c.dataPpdus << " n" << n << "_mpdus=" << c.dataMpdus
		  << " n" << n << "_lost=" << c.lost << " n" << n << "_bars=" << c.bars;
		if (n)
			o << " n" << n << "_up_mbps=" << c.upBytes * 8 / duration / 1e6 << " n" << n
			  << "_down_mbps=" << c.downBytes * 8 / duration / 1e6;
	}
	o << " beacons=" << g_ct[0].beacons
	  << " beacon_bytes=" << (g_ct[0].beacons ? g_ct[0].beaconBytes / g_ct[0].beacons : 0)
	  << " beacon_air_us=" << g_ct[0].beaconAir.GetMicroSeconds();
	std::cout << o.str() << std::endl;
	Simulator::Destroy();
	return 0;
}
