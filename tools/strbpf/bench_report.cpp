// SPDX-License-Identifier: BSD-2-Clause
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

bool find_bench(const std::vector<Measurement>& ms, const std::string& bench) {
    return std::any_of(ms.begin(), ms.end(), [&](const Measurement& m) { return m.bench == bench; });
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

// strnlen vs strlen and the like: both kfuncs' ns per engine (the kernel's among them), then bounded/unbounded.
std::string bounded_table(const BoundedPair& p, const std::vector<Measurement>& ms,
                          const std::vector<std::string>& engines, const std::vector<uint32_t>& lengths) {
    std::vector<Column> cols;
    for (const std::string& e : engines) {
        const std::pair<std::string, std::string> both[] = {{p.bounded_short, p.bounded},
                                                             {p.unbounded_short, p.unbounded}};
        for (const auto& hb : both) {
            const std::string bench = hb.second;
            cols.push_back({hb.first + " " + e, [&ms, bench, e](uint32_t len) { return find_ns(ms, bench, e, len); }});
        }
        cols.push_back({fmt::format("{}/{} {}", p.bounded_short, p.unbounded_short, e),
                        [&ms, &p, e](uint32_t len) -> std::optional<double> {
                            auto b = find_ns(ms, p.bounded, e, len), u = find_ns(ms, p.unbounded, e, len);
                            if (!b || !u)
                                return std::nullopt;
                            return *b / *u;
                        },
                        true});
    }
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

} // namespace

std::string text_line(const Measurement& m, bool show_producers) {
    std::string p = show_producers ? fmt::format("p={:<2} ", m.producers) : "";
    std::string per = show_producers ? fmt::format(" ({:.3f}M/prod)", m.hits_mps / m.producers) : "";
    // The engine column is 7 wide ("interp ", "kernel ", "native "); a longer name (interp-checked) keeps a space.
    const std::string engine = fmt::format("{:<7}", m.engine + (m.engine.size() >= 7 ? " " : ""));
    return fmt::format("{:<20} len={:<5} {}{}hits {:8.3f} ± {:5.3f}M/s{}", m.bench, len_text(m.len), engine, p,
                       m.hits_mps, m.hits_mps_stddev, per);
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
    j["samples"] = m.samples;
    if (m.hits_mps_best > 0) { // ns per operation of the fastest and of the median sample
        j["ns_best"] = 1e3 / m.hits_mps_best;
        j["ns_median"] = 1e3 / m.hits_mps_median;
    }
    if (m.rounds > 1)
        j["rounds"] = m.rounds;
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
    for (const BoundedPair& p : sc.pairs) {
        const bool both = find_bench(ms, p.bounded) && find_bench(ms, p.unbounded);
        if (!both)
            continue;
        out += fmt::format("\n{} vs {}: the bounded kfunc beside the unbounded one on the same string, ns per "
                           "operation; {}/{} is the bounded one's time over the unbounded one's\n\n",
                           p.bounded_short, p.unbounded_short, p.bounded_short, p.unbounded_short);
        out += bounded_table(p, ms, engines, lengths);
    }
    std::string scaling = scaling_table(ms);
    if (!scaling.empty())
        out += "\nscaling: N producers running the same loaded program against one\n\n" + scaling;
    return out;
}

namespace {
// One panel of the plot: a family's benches (kfunc / loop / glibc) on every engine, log-log.
struct Panel {
    const Family* family;
    std::vector<std::pair<std::string, std::string>> series; // (bench, engine) in measurement order
};

const char* engine_color(const std::string& engine) {
    if (engine == "jit")
        return "#1f77b4";
    if (engine == "kernel")
        return "#d62728";
    if (engine == "interp")
        return "#2ca02c";
    return "#555555"; // native (glibc)
}

// The dash of a bench by its role in the family: the helper/kfunc solid, the open-coded loop dashed, glibc dotted.
const char* role_dash(const Family& f, const std::string& bench) {
    if (bench == f.slow)
        return "7,4";
    if (bench == f.native)
        return "2,3";
    return "none";
}

struct Axes {
    double x, y, w, h;         // the panel's plotting area
    double lx0, lx1, ly0, ly1; // log10 ranges
    double X(double v) const { return x + (std::log10(v) - lx0) / (lx1 - lx0) * w; }
    double Y(double v) const {
        return y + h - (std::log10(std::clamp(v, std::pow(10, ly0), std::pow(10, ly1))) - ly0) / (ly1 - ly0) * h;
    }
};

std::string panel_svg(const Panel& p, const std::vector<Measurement>& ms, const Axes& a,
                      const std::vector<double>& xs) {
    std::string s = fmt::format("<text x=\"{}\" y=\"{}\" font-weight=\"bold\">{}</text>\n", a.x, a.y - 6,
                                xml_escape(p.family->label));
    for (double d = a.ly0; d <= a.ly1 + 1e-9; d++) {
        const double v = std::pow(10, d);
        s += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>"
                         "<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\" font-size=\"10\">{:g}</text>\n",
                         a.x, a.x + a.w, a.Y(v), a.Y(v), a.x - 4, a.Y(v) + 3, v);
    }
    for (double x : xs)
        s += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#eee\"/>"
                         "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\" font-size=\"10\">{4:g}</text>\n",
                         a.X(x), a.y, a.y + a.h, a.y + a.h + 12, x);
    s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#333\"/>\n", a.x, a.y,
                     a.w, a.h);
    for (const auto& [bench, engine] : p.series) {
        const char* color = engine_color(engine);
        std::string path, marks;
        for (const Measurement& m : ms) {
            if (m.bench != bench || m.engine != engine || m.producers != 1 || m.hits_mps <= 0)
                continue;
            const double x = a.X(std::max<double>(1, m.len)), y = a.Y(m.ns_per_op());
            path += fmt::format("{:.1f},{:.1f} ", x, y);
            // Error bar: ns per operation at mean ± one standard deviation of the rate.
            const double hi = m.hits_mps - m.hits_mps_stddev > 0 ? 1e3 / (m.hits_mps - m.hits_mps_stddev) : 1e18;
            const double lo = 1e3 / (m.hits_mps + m.hits_mps_stddev);
            marks += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\"/>"
                                 "<circle cx=\"{0:.1f}\" cy=\"{4:.1f}\" r=\"2.5\" fill=\"{3}\"/>\n",
                                 x, a.Y(lo), a.Y(hi), color, y);
        }
        s += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.8\" stroke-dasharray=\"{}\" "
                         "points=\"{}\"/>\n",
                         color, role_dash(*p.family, bench), path);
        s += marks;
    }
    return s;
}

// The legend: engines by colour, the family roles by dash.
std::string legend_svg(const std::vector<std::string>& engines, const Family& roles, double x, double y) {
    std::string s;
    auto item = [&](const char* color, const char* dash, const std::string& text) {
        s += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"2\" "
                         "stroke-dasharray=\"{4}\"/><text x=\"{5}\" y=\"{6}\">{7}</text>\n",
                         x, x + 28, y, color, dash, x + 34, y + 4, xml_escape(text));
        x += 44 + 7.0 * double(text.size());
    };
    for (const std::string& e : engines)
        item(engine_color(e), "none", e == "native" ? "glibc (native)" : e);
    item("#333", "none", roles.fast_short);
    if (!roles.slow.empty())
        item("#333", "7,4", roles.slow_short);
    if (!roles.native.empty())
        item("#333", "2,3", "glibc");
    return s;
}
} // namespace

std::string svg_plot(const Scenario& sc, const std::vector<Measurement>& ms, const std::string& subtitle) {
    std::vector<Panel> panels;
    std::vector<std::string> engines;
    std::vector<double> xs;
    double ymin = 1e18, ymax = 0;
    for (const Family& f : sc.families) {
        Panel p{&f, {}};
        for (const Measurement& m : ms) {
            if (m.producers != 1 || m.hits_mps <= 0 || (m.bench != f.fast && m.bench != f.slow && m.bench != f.native))
                continue;
            auto key = std::make_pair(m.bench, m.engine);
            if (std::find(p.series.begin(), p.series.end(), key) == p.series.end())
                p.series.push_back(key);
            if (std::find(engines.begin(), engines.end(), m.engine) == engines.end())
                engines.push_back(m.engine);
            xs.push_back(std::max<double>(1, m.len));
            ymin = std::min(ymin, m.ns_per_op()), ymax = std::max(ymax, m.ns_per_op());
        }
        if (!p.series.empty())
            panels.push_back(std::move(p));
    }
    std::sort(xs.begin(), xs.end());
    xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
    if (xs.empty())
        xs = {1, 4095}, ymin = 1, ymax = 10;
    const size_t cols = panels.size() >= 3 ? 3 : std::max<size_t>(1, panels.size());
    const size_t rows = (panels.size() + cols - 1) / cols;
    const double PW = 360, PH = 230, GAPX = 40, GAPY = 60, L = 55, T = 110;
    const double W = L + double(cols) * (PW + GAPX), H = T + double(std::max<size_t>(rows, 1)) * (PH + GAPY);
    const double lx0 = std::log10(xs.front()), lx1 = std::max(std::log10(xs.back()), lx0 + 1);
    const double ly0 = std::floor(std::log10(ymin)), ly1 = std::max(std::ceil(std::log10(ymax)), ly0 + 1);
    std::string s = fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" )"
                                R"(viewBox="0 0 {0} {1}" font-family="sans-serif" font-size="12">)"
                                "\n<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n",
                                W, H);
    s += fmt::format("<text x=\"{}\" y=\"28\" font-size=\"17\" font-weight=\"bold\">strbpf bench {}: ns per "
                     "operation against string length (log-log, lower is better; bars: ± 1 stddev)</text>\n",
                     L, xml_escape(sc.name));
    s += fmt::format("<text x=\"{}\" y=\"48\" fill=\"#555\">{}</text>\n", L, xml_escape(subtitle));
    if (!sc.families.empty())
        s += legend_svg(engines, sc.families.front(), L, 74);
    for (size_t k = 0; k < panels.size(); k++) {
        const Axes a{
            L + double(k % cols) * (PW + GAPX), T + double(k / cols) * (PH + GAPY), PW, PH, lx0, lx1, ly0, ly1};
        s += panel_svg(panels[k], ms, a, xs);
    }
    s += "</svg>\n";
    return s;
}

} // namespace strbpf::cli::bench
