// What `strbpf bench` prints (tools stage): kernel-style lines, JSON lines, markdown summary tables, SVG plot.
#include "bench_report.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace strbpf::cli::bench {
namespace {

std::string len_text(uint32_t len) { return len ? std::to_string(len) : "-"; }

// Three significant digits, as the kernel-numbers tables print ns.
std::string ns_text(double ns) {
    if (ns <= 0)
        return "—";
    if (ns < 10)
        return fmt::format("{:.2f}", ns);
    if (ns < 100)
        return fmt::format("{:.1f}", ns);
    return fmt::format("{:.0f}", ns);
}

std::string ratio_text(double r) { return r >= 100 ? fmt::format("{:.0f}×", r) : fmt::format("{:.2f}×", r); }

std::optional<double> find_ns(const std::vector<Measurement>& ms, const std::string& bench, const std::string& engine,
                              uint32_t len, uint32_t producers = 1) {
    for (const Measurement& m : ms)
        if (m.bench == bench && m.engine == engine && m.len == len && m.producers == producers && m.hits_mps > 0)
            return m.ns_per_op();
    return std::nullopt;
}

struct Column {
    std::string head;
    std::function<std::optional<double>(uint32_t len)> value;
    bool ratio = false;
};

std::string render(const std::vector<Column>& cols, const std::vector<uint32_t>& lengths) {
    std::vector<const Column*> used;
    for (const Column& c : cols)
        for (uint32_t len : lengths)
            if (c.value(len)) {
                used.push_back(&c);
                break;
            }
    std::string out = "| len |";
    std::string rule = "|---:|";
    for (const Column* c : used) {
        out += " " + c->head + " |";
        rule += "---:|";
    }
    out += "\n" + rule + "\n";
    for (uint32_t len : lengths) {
        out += "| " + len_text(len) + " |";
        for (const Column* c : used) {
            auto v = c->value(len);
            out += " " + (v ? (c->ratio ? ratio_text(*v) : ns_text(*v)) : std::string("—")) + " |";
        }
        out += "\n";
    }
    return out;
}

// The engine that stands for strbpf in the ratios: the JIT when measured, else the interpreter.
std::string strbpf_engine(const std::vector<std::string>& engines) {
    if (std::find(engines.begin(), engines.end(), "jit") != engines.end())
        return "jit";
    return "interp";
}

std::string family_table(const Family& f, const std::vector<Measurement>& ms, const std::vector<std::string>& engines,
                         const std::vector<uint32_t>& lengths) {
    std::vector<Column> cols;
    auto ns_col = [&](const std::string& head, const std::string& bench, const std::string& engine) {
        cols.push_back({head, [&ms, bench, engine](uint32_t len) { return find_ns(ms, bench, engine, len); }});
    };
    auto ratio_col = [&](const std::string& head, std::string b1, std::string e1, std::string b2, std::string e2) {
        cols.push_back({head,
                        [&ms, b1, e1, b2, e2](uint32_t len) -> std::optional<double> {
                            auto a = find_ns(ms, b1, e1, len), b = find_ns(ms, b2, e2, len);
                            if (!a || !b)
                                return std::nullopt;
                            return *a / *b;
                        },
                        true});
    };
    for (const std::string& e : engines)
        ns_col(f.fast_short + " " + e, f.fast, e);
    if (!f.slow.empty())
        for (const std::string& e : engines)
            ns_col(f.slow_short + " " + e, f.slow, e);
    if (!f.native.empty())
        ns_col("glibc", f.native, "native");
    if (!f.slow.empty())
        for (const std::string& e : engines)
            ratio_col(f.slow_short + "/" + f.fast_short + " " + e, f.slow, e, f.fast, e);
    const std::string s = strbpf_engine(engines);
    ratio_col(fmt::format("kernel/{} {}", s, f.fast_short), f.fast, "kernel", f.fast, s);
    if (!f.native.empty())
        ratio_col(fmt::format("{} {}/glibc", s, f.fast_short), f.fast, s, f.native, "native");
    return render(cols, lengths);
}

std::string scaling_table(const std::vector<Measurement>& ms) {
    std::string out;
    for (const Measurement& m : ms) {
        if (m.producers <= 1)
            continue;
        auto one = find_ns(ms, m.bench, m.engine, m.len, 1);
        if (!one)
            continue;
        const double one_mps = 1e3 / *one;
        if (out.empty())
            out = "| bench | engine | len | 1 producer M/s | N producers M/s | N | scaling |\n"
                  "|---|---|---:|---:|---:|---:|---:|\n";
        out += fmt::format("| {} | {} | {} | {:.3f} | {:.3f} | {} | {} |\n", m.bench, m.engine, len_text(m.len),
                           one_mps, m.hits_mps, m.producers, ratio_text(m.hits_mps / one_mps));
    }
    return out;
}

std::string xml_escape(const std::string& s) {
    std::string o;
    for (char c : s) {
        switch (c) {
        case '<': o += "&lt;"; break;
        case '>': o += "&gt;"; break;
        case '&': o += "&amp;"; break;
        case '"': o += "&quot;"; break;
        default: o += c;
        }
    }
    return o;
}

const char* dash_of(const std::string& engine) {
    if (engine == "kernel")
        return "9,4";
    if (engine == "interp")
        return "2,4";
    if (engine == "native")
        return "12,3,2,3";
    return "none";
}

} // namespace

std::string text_line(const Measurement& m, bool show_producers) {
    std::string p = show_producers ? fmt::format("p={:<2} ", m.producers) : "";
    std::string per = show_producers ? fmt::format(" ({:.3f}M/prod)", m.hits_mps / m.producers) : "";
    return fmt::format("{:<20} len={:<5} {:<7}{}hits {:8.3f} ± {:5.3f}M/s{} (drops 0.000 ± 0.000M/s)", m.bench,
                       len_text(m.len), m.engine, p, m.hits_mps, m.hits_mps_stddev, per);
}

std::string json_line(const Measurement& m) {
    nlohmann::ordered_json j;
    j["bench"] = m.bench;
    j["engine"] = m.engine;
    j["len"] = m.len;
    j["producers"] = m.producers;
    j["hits_mps"] = m.hits_mps;
    j["hits_mps_stddev"] = m.hits_mps_stddev;
    j["ns_per_op"] = m.ns_per_op();
    j["drops_mps"] = 0.0;
    j["samples"] = m.samples;
    return j.dump();
}

std::string summary(const Scenario& sc, const std::vector<Measurement>& ms, const std::vector<std::string>& engines,
                    const std::vector<uint32_t>& lengths) {
    std::string out;
    for (const Family& f : sc.families) {
        bool any = std::any_of(ms.begin(), ms.end(), [&](const Measurement& m) {
            return m.bench == f.fast || m.bench == f.slow || m.bench == f.native;
        });
        if (!any)
            continue;
        out += fmt::format("\n{}: ns per operation, 1 producer (lower is better); a ratio A/B is A's time over B's, so above "
                           "1× B is faster\n\n",
                           f.label);
        out += family_table(f, ms, engines, lengths);
    }
    std::string scaling = scaling_table(ms);
    if (!scaling.empty())
        out += "\nscaling: N producers running the same loaded program against one\n\n" + scaling;
    return out;
}

std::string svg_plot(const Scenario& sc, const std::vector<Measurement>& ms, const std::string& subtitle) {
    // Series: (bench, engine) at one producer, in measurement order.
    std::vector<std::pair<std::string, std::string>> series;
    std::map<std::pair<std::string, std::string>, std::vector<std::pair<double, double>>> points;
    double xmin = 1e9, xmax = 0, ymin = 1e18, ymax = 0;
    for (const Measurement& m : ms) {
        if (m.producers != 1 || m.hits_mps <= 0)
            continue;
        auto key = std::make_pair(m.bench, m.engine);
        if (!points.count(key))
            series.push_back(key);
        const double x = std::max<double>(1, m.len), y = m.ns_per_op();
        points[key].push_back({x, y});
        xmin = std::min(xmin, x), xmax = std::max(xmax, x), ymin = std::min(ymin, y), ymax = std::max(ymax, y);
    }
    const double W = 1000, H = 620, L = 80, R = 300, T = 70, B = 60;
    const double pw = W - L - R, ph = H - T - B;
    if (series.empty())
        xmin = 1, xmax = 4095, ymin = 1, ymax = 10;
    const double lx0 = std::log10(xmin), lx1 = std::max(std::log10(xmax), lx0 + 1);
    const double ly0 = std::floor(std::log10(ymin)), ly1 = std::max(std::ceil(std::log10(ymax)), ly0 + 1);
    auto X = [&](double x) { return L + (std::log10(x) - lx0) / (lx1 - lx0) * pw; };
    auto Y = [&](double y) { return T + ph - (std::log10(y) - ly0) / (ly1 - ly0) * ph; };
    static const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
                                    "#e377c2", "#17becf", "#7f7f7f", "#bcbd22", "#393b79", "#637939"};
    std::string s = fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" )"
                                R"(viewBox="0 0 {0} {1}" font-family="sans-serif" font-size="12">)"
                                "\n<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n",
                                W, H);
    s += fmt::format("<text x=\"{}\" y=\"28\" font-size=\"17\" font-weight=\"bold\">strbpf bench {}: ns per "
                     "operation against string length (log-log, lower is better)</text>\n",
                     L, xml_escape(sc.name));
    s += fmt::format("<text x=\"{}\" y=\"48\" fill=\"#555\">{}</text>\n", L, xml_escape(subtitle));
    for (double d = ly0; d <= ly1 + 1e-9; d++) { // decades of ns, with 2× and 5× minor lines
        for (double m : {1.0, 2.0, 5.0}) {
            const double v = m * std::pow(10, d);
            if (std::log10(v) > ly1 + 1e-9)
                break;
            s += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\"/>\n", L, L + pw,
                             Y(v), Y(v), m == 1 ? "#ccc" : "#eee");
            if (m == 1)
                s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{:g}</text>\n", L - 6, Y(v) + 4, v);
        }
    }
    std::vector<double> xs;
    for (auto& [k, pts] : points)
        for (auto& p : pts)
            xs.push_back(p.first);
    std::sort(xs.begin(), xs.end());
    xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
    for (double x : xs)
        s += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#eee\"/>"
                         "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4:g}</text>\n",
                         X(x), T, T + ph, T + ph + 18, x);
    s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#333\"/>\n", L, T,
                     pw, ph);
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">string length (bytes)</text>\n", L + pw / 2,
                     H - 15);
    s += fmt::format("<text transform=\"translate(22,{}) rotate(-90)\" text-anchor=\"middle\">ns per operation"
                     "</text>\n",
                     T + ph / 2);
    std::vector<std::string> benches; // one colour per bench, one dash pattern per engine
    for (const auto& key : series)
        if (std::find(benches.begin(), benches.end(), key.first) == benches.end())
            benches.push_back(key.first);
    for (size_t i = 0; i < series.size(); i++) {
        const auto& key = series[i];
        const size_t b = size_t(std::find(benches.begin(), benches.end(), key.first) - benches.begin());
        const char* color = kColors[b % (sizeof kColors / sizeof *kColors)];
        std::string path;
        for (auto& [x, y] : points[key])
            path += fmt::format("{:.1f},{:.1f} ", X(x), Y(y));
        s += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" stroke-dasharray=\"{}\" "
                         "points=\"{}\"/>\n",
                         color, dash_of(key.second), path);
        for (auto& [x, y] : points[key])
            s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>\n", X(x), Y(y), color);
        const double ly = T + 10 + double(i) * 20;
        s += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"2\" "
                         "stroke-dasharray=\"{4}\"/><text x=\"{5}\" y=\"{6}\">{7} ({8})</text>\n",
                         L + pw + 15, L + pw + 45, ly, color, dash_of(key.second), L + pw + 52, ly + 4,
                         xml_escape(key.first), xml_escape(key.second));
    }
    s += "</svg>\n";
    return s;
}

} // namespace strbpf::cli::bench
