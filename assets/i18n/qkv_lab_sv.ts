<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="sv_SE" sourcelanguage="en">
<context>
    <name></name>
    <message>
        <source>could not compute: {why}</source>
        <translation>kunde inte räkna: {why}</translation>
    </message>
    <message>
        <source>note: {text}</source>
        <translation>obs: {text}</translation>
    </message>
    <message>
        <source>every intermediate</source>
        <translation>alla mellanresultat</translation>
    </message>
    <message>
        <source>wrote {path} ({what}; {preset}, layer {layer}, head {head}, T={T})</source>
        <translation>skrev {path} ({what}; {preset}, lager {layer}, head {head}, T={T})</translation>
    </message>
    <message>
        <source>GPT-2 small: 124 M parameters, 12 layers (548 MB)</source>
        <translation>GPT-2 small: 124 M parametrar, 12 lager (548 MB)</translation>
    </message>
    <message>
        <source>SmolLM2-135M: 30 layers, RMSNorm, RoPE, GQA, SwiGLU (269 MB)</source>
        <translation>SmolLM2-135M: 30 lager, RMSNorm, RoPE, GQA, SwiGLU (269 MB)</translation>
    </message>
    <message>
        <source>SmolLM2-135M-Instruct: the chat-tuned 135M (269 MB)</source>
        <translation>SmolLM2-135M-Instruct: 135M-modellen finjusterad för chatt (269 MB)</translation>
    </message>
    <message>
        <source>SmolLM2-360M: 32 layers, 15 heads sharing 5 K/V heads (724 MB)</source>
        <translation>SmolLM2-360M: 32 lager, 15 headar som delar 5 K/V-headar (724 MB)</translation>
    </message>
    <message>
        <source>{repo}: not a repo id of the hub (organisation/name, with letters, digits, &apos;_&apos;, &apos;.&apos; and &apos;-&apos;)</source>
        <translation>{repo}: inget repo-id på hubben (organisation/namn, med bokstäver, siffror, &apos;_&apos;, &apos;.&apos; och &apos;-&apos;)</translation>
    </message>
    <message>
        <source>{revision}: not a revision name (a branch, tag or commit id)</source>
        <translation>{revision}: inget revisionsnamn (en gren, tagg eller commit-id)</translation>
    </message>
    <message>
        <source>the hub listed a file name outside the repo: {name}. Nothing was downloaded</source>
        <translation>hubben listade ett filnamn utanför repot: {name}. Inget laddades ned</translation>
    </message>
    <message>
        <source>{path} leads outside the download cache {cache}: nothing written there</source>
        <translation>{path} leder ut ur nedladdningscachen {cache}: inget skrevs där</translation>
    </message>
    <message>
        <source>downloading {repo} ({mb} MB)</source>
        <translation>laddar ned {repo} ({mb} MB)</translation>
    </message>
    <message>
        <source>asking the hub for {repo}</source>
        <translation>frågar hubben efter {repo}</translation>
    </message>
    <message>
        <source>{repo}: the hub redirected more than 5 times</source>
        <translation>{repo}: hubben omdirigerade mer än 5 gånger</translation>
    </message>
    <message>
        <source>{repo}: the hub redirected to an address that is not http or https ({why})</source>
        <translation>{repo}: hubben omdirigerade till en adress som inte är http eller https ({why})</translation>
    </message>
    <message>
        <source>{where} cannot be reached ({why})</source>
        <translation>{where} kan inte nås ({why})</translation>
    </message>
    <message>
        <source>{repo}: the hub&apos;s answer could not be read ({why}: {detail})</source>
        <translation>{repo}: hubbens svar kunde inte läsas ({why}: {detail})</translation>
    </message>
    <message>
        <source>{repo}: cannot write to the download cache {cache}: {why}</source>
        <translation>{repo}: kan inte skriva till nedladdningscachen {cache}: {why}</translation>
    </message>
    <message>
        <source>{repo}: no such model on the hub (or it is private)</source>
        <translation>{repo}: ingen sådan modell på hubben (eller så är den privat)</translation>
    </message>
    <message>
        <source>{repo}: no revision {revision} on the hub</source>
        <translation>{repo}: ingen revision {revision} på hubben</translation>
    </message>
    <message>
        <source>the hub at {where} answered HTTP {code} (a server error, not this machine&apos;s connection): try again later</source>
        <translation>hubben på {where} svarade HTTP {code} (ett serverfel, inte den här datorns anslutning): försök igen senare</translation>
    </message>
    <message>
        <source>{repo}: the hub answered HTTP {code} for {what}</source>
        <translation>{repo}: hubben svarade HTTP {code} för {what}</translation>
    </message>
    <message>
        <source>{repo}: the hub&apos;s answer for {what} is over {limit}</source>
        <translation>{repo}: hubbens svar för {what} är över {limit}</translation>
    </message>
    <message>
        <source>{repo}: the hub&apos;s answer for {what} is not JSON</source>
        <translation>{repo}: hubbens svar för {what} är inte JSON</translation>
    </message>
    <message>
        <source>{repo}: the hub gave {sha} as the commit, not a commit id (40 hex digits)</source>
        <translation>{repo}: hubben angav {sha} som commit, inget commit-id (40 hexadecimala siffror)</translation>
    </message>
    <message>
        <source>{repo}: the hub&apos;s file listing goes on for more than {n} pages</source>
        <translation>{repo}: hubbens fillista fortsätter i mer än {n} sidor</translation>
    </message>
    <message>
        <source>{repo}: the hub&apos;s file listing is not a list</source>
        <translation>{repo}: hubbens fillista är ingen lista</translation>
    </message>
    <message>
        <source>{repo}: the hub lists more than {n} files</source>
        <translation>{repo}: hubben listar mer än {n} filer</translation>
    </message>
    <message>
        <source>{repo}: the hub&apos;s listing continues at another address: {url}</source>
        <translation>{repo}: hubbens lista fortsätter på en annan adress: {url}</translation>
    </message>
    <message>
        <source>{repo}: the hub gave {size} as the size of {name}</source>
        <translation>{repo}: hubben angav {size} som storlek på {name}</translation>
    </message>
    <message>
        <source>{repo}: the hub gave {digest} as the hash of {name}</source>
        <translation>{repo}: hubben angav {digest} som hash för {name}</translation>
    </message>
    <message>
        <source>{repo}: {name} is {size} on the hub, more than the {limit} the lab opens</source>
        <translation>{repo}: {name} är {size} på hubben, mer än de {limit} labbet öppnar</translation>
    </message>
    <message>
        <source>{repo}: its weights are {size}, more than this machine&apos;s memory budget {budget} ({source})</source>
        <translation>{repo}: dess vikter är {size}, mer än den här datorns minnesbudget {budget} ({source})</translation>
    </message>
    <message>
        <source>{repo}: the hub sent more than the {size} bytes its listing gives for {name}</source>
        <translation>{repo}: hubben skickade mer än de {size} byte som dess lista anger för {name}</translation>
    </message>
    <message>
        <source>{repo}: the hub sent {got} of the {size} bytes of {name}</source>
        <translation>{repo}: hubben skickade {got} av de {size} byten i {name}</translation>
    </message>
    <message>
        <source>{repo}: {name} does not match the hash in the hub&apos;s listing</source>
        <translation>{repo}: {name} stämmer inte med hashen i hubbens lista</translation>
    </message>
    <message>
        <source>{where}: the hub&apos;s address must start with http:// or https://</source>
        <translation>{where}: hubbens adress måste börja med http:// eller https://</translation>
    </message>
    <message>
        <source>{repo}: the download took longer than {s} s and was stopped</source>
        <translation>{repo}: nedladdningen tog längre tid än {s} s och stoppades</translation>
    </message>
    <message>
        <source>offline: {where} cannot be reached and {repo} is not in the download cache ({why}). Connect to the internet and try again, or open a folder or GGUF file you have (Model ▸ Open model folder or GGUF file…)</source>
        <translation>offline: {where} går inte att nå och {repo} finns inte i nedladdningscachen ({why}). Anslut till internet och försök igen, eller öppna en mapp eller GGUF-fil som du har (Modell ▸ Öppna modellmapp eller GGUF-fil…)</translation>
    </message>
    <message>
        <source>{repo} has no .safetensors weights (only formats the lab does not open)</source>
        <translation>{repo} har inga .safetensors-vikter (bara format som labbet inte öppnar)</translation>
    </message>
    <message>
        <source>PNG image (*.png)</source>
        <translation>PNG-bild (*.png)</translation>
    </message>
    <message>
        <source>SVG vector image (*.svg)</source>
        <translation>SVG-vektorbild (*.svg)</translation>
    </message>
    <message>
        <source>PDF document (*.pdf)</source>
        <translation>PDF-dokument (*.pdf)</translation>
    </message>
    <message>
        <source>NumPy archive (*.npz)</source>
        <translation>NumPy-arkiv (*.npz)</translation>
    </message>
    <message>
        <source>CSV table (*.csv)</source>
        <translation>CSV-tabell (*.csv)</translation>
    </message>
    <message>
        <source>QKV Lab sessions (*.qkvlab);;All files (*)</source>
        <translation>QKV Lab-sessioner (*.qkvlab);;Alla filer (*)</translation>
    </message>
    <message>
        <source>off: start clean (also: qkv-lab --clean)</source>
        <translation>av: börja från början (även: qkv-lab --clean)</translation>
    </message>
    <message>
        <source>Follow the system ({language})</source>
        <translation>Följ systemet ({language})</translation>
    </message>
    <message>
        <source>(no sessions yet)</source>
        <translation>(inga sessioner än)</translation>
    </message>
    <message>
        <source>Clear the list</source>
        <translation>Töm listan</translation>
    </message>
    <message>
        <source>untitled</source>
        <translation>namnlös</translation>
    </message>
    <message>
        <source> — {preset}, random weights (seed {seed})</source>
        <translation> — {preset}, slumpade vikter (frö {seed})</translation>
    </message>
    <message>
        <source>New session</source>
        <translation>Ny session</translation>
    </message>
    <message>
        <source>Open session</source>
        <translation>Öppna session</translation>
    </message>
    <message>
        <source>Could not open the session — {why}. Nothing changed.</source>
        <translation>Kunde inte öppna sessionen — {why}. Inget ändrades.</translation>
    </message>
    <message>
        <source>Opened {name}.</source>
        <translation>Öppnade {name}.</translation>
    </message>
    <message>
        <source>The session&apos;s inputs could not be computed, so it was not opened: the title and Save still refer to what is on screen.</source>
        <translation>Sessionens indata kunde inte beräknas, så den öppnades inte: titeln och Spara gäller fortfarande det som visas.</translation>
    </message>
    <message>
        <source>Save session</source>
        <translation>Spara session</translation>
    </message>
    <message>
        <source>{why}. Nothing was written; the session is still open.</source>
        <translation>{why}. Inget skrevs; sessionen är fortfarande öppen.</translation>
    </message>
    <message>
        <source>Saved {name}.</source>
        <translation>Sparade {name}.</translation>
    </message>
    <message>
        <source>Nothing to export yet: the first computation has not finished.</source>
        <translation>Inget att exportera än: den första beräkningen är inte klar.</translation>
    </message>
    <message>
        <source>Still computing the last change: export once the views show it (or cancel the computation to export what is on screen).</source>
        <translation>Den senaste ändringen beräknas fortfarande: exportera när vyerna visar den (eller avbryt beräkningen för att exportera det som visas).</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>Exportera</translation>
    </message>
    <message>
        <source>Export all intermediates</source>
        <translation>Exportera alla mellanresultat</translation>
    </message>
    <message>
        <source>Export failed: {why}</source>
        <translation>Exporten misslyckades: {why}</translation>
    </message>
    <message>
        <source>Exported {name}.</source>
        <translation>Exporterade {name}.</translation>
    </message>
    <message>
        <source>the last session</source>
        <translation>den senaste sessionen</translation>
    </message>
    <message>
        <source>{why} — starting clean.</source>
        <translation>{why} — börjar från början.</translation>
    </message>
    <message>
        <source>the top weight stayed {top}, entropy {entropy} nats: unchanged (already one-hot)</source>
        <translation>den största vikten förblev {top}, entropi {entropy} nats: oförändrad (redan one-hot)</translation>
    </message>
    <message>
        <source>the top weight stayed {top}, entropy {entropy} nats: unchanged</source>
        <translation>den största vikten förblev {top}, entropi {entropy} nats: oförändrad</translation>
    </message>
    <message>
        <source>the top weight went {top0} → {top1}, entropy {ent0} → {ent1} nats: sharper</source>
        <translation>den största vikten gick {top0} → {top1}, entropi {ent0} → {ent1} nats: skarpare</translation>
    </message>
    <message>
        <source>the top weight went {top0} → {top1}, entropy {ent0} → {ent1} nats: flatter</source>
        <translation>den största vikten gick {top0} → {top1}, entropi {ent0} → {ent1} nats: plattare</translation>
    </message>
    <message>
        <source>“{page}” is an instrument, not a step of the block: its numbers come from compute/{module}.py.</source>
        <translation>”{page}” är ett instrument, inte ett steg i blocket: dess tal kommer från compute/{module}.py.</translation>
    </message>
    <message>
        <source>no source for {backend}: {why}</source>
        <translation>ingen källkod för {backend}: {why}</translation>
    </message>
    <message>
        <source>this backend computed the views</source>
        <translation>denna backend beräknade vyerna</translation>
    </message>
    <message>
        <source>(the views were computed by {backend})</source>
        <translation>(vyerna beräknades av {backend})</translation>
    </message>
    <message>
        <source>d_k = {d_k}: the lab needs d_k ≥ 1.</source>
        <translation>d_k = {d_k}: labbet behöver d_k ≥ 1.</translation>
    </message>
    <message>
        <source>The mask view compares with an unmasked run only up to {size} of intermediates.</source>
        <translation>Maskvyn jämför med en körning utan mask bara upp till {size} mellanresultat.</translation>
    </message>
    <message>
        <source>The KV-cache view computes in float64 and is for models up to {max} M parameters; this one has {n} M.</source>
        <translation>KV-cache-vyn räknar i float64 och är till för modeller upp till {max} M parametrar; den här har {n} M.</translation>
    </message>
    <message>
        <source>Wait for the current computation, then try again.</source>
        <translation>Vänta på den pågående beräkningen och försök sedan igen.</translation>
    </message>
    <message>
        <source>Choose your answer first: predicting is the point.</source>
        <translation>Välj ditt svar först: det är förutsägelsen som är poängen.</translation>
    </message>
    <message>
        <source>That change cannot be made here: the query&apos;s token is at the front already.</source>
        <translation>Den ändringen går inte att göra här: queryns token står redan först.</translation>
    </message>
    <message>
        <source>That change cannot be made here.</source>
        <translation>Den ändringen går inte att göra här.</translation>
    </message>
    <message>
        <source>The change could not be computed, so there is nothing to measure: {why}</source>
        <translation>Ändringen kunde inte beräknas, så det finns inget att mäta: {why}</translation>
    </message>
    <message>
        <source>in B, key {j} “{word}” takes the most weight ({weight})</source>
        <translation>i B får key {j} ”{word}” mest vikt ({weight})</translation>
    </message>
    <message>
        <source>✓ right</source>
        <translation>✓ rätt</translation>
    </message>
    <message>
        <source>✗ not this time</source>
        <translation>✗ inte den här gången</translation>
    </message>
    <message>
        <source>You predicted: {guess}.&lt;br&gt;Measured: {seen} — A and B side by side on the A/B page.&lt;br&gt;{mark}</source>
        <translation>Du förutsade: {guess}.&lt;br&gt;Uppmätt: {seen} — A och B sida vid sida på A/B-sidan.&lt;br&gt;{mark}</translation>
    </message>
    <message>
        <source>The sinks view compares with a run without the first token only up to {size} of intermediates.</source>
        <translation>Sänkvyn jämför med en körning utan den första token bara upp till {size} mellanresultat.</translation>
    </message>
    <message>
        <source>{weights}, K/V heads pooled to {n}</source>
        <translation>{weights}, K/V-headar sammanslagna till {n}</translation>
    </message>
    <message>
        <source>Pool the K/V heads to {n}</source>
        <translation>Slå samman K/V-headarna till {n}</translation>
    </message>
    <message>
        <source>Load the model wrong: {mistake}</source>
        <translation>Läs in modellen fel: {mistake}</translation>
    </message>
    <message>
        <source>{weights}, loaded wrong: {mistake}</source>
        <translation>{weights}, felaktigt inläst: {mistake}</translation>
    </message>
    <message>
        <source>The change is now the lab&apos;s (Edit ▸ Undo takes it back).</source>
        <translation>Ändringen är nu labbets (Redigera ▸ Ångra tar tillbaka den).</translation>
    </message>
    <message>
        <source>key {j} “{word}”</source>
        <translation>key {j} ”{word}”</translation>
    </message>
    <message>
        <source>sharper</source>
        <translation>skarpare</translation>
    </message>
    <message>
        <source>flatter or the same</source>
        <translation>plattare eller likadan</translation>
    </message>
    <message>
        <source>not enough memory</source>
        <translation>inte tillräckligt med minne</translation>
    </message>
    <message numerus="yes">
        <source>%n thread(s)</source>
        <translation>
            <numerusform>%n tråd</numerusform>
            <numerusform>%n trådar</numerusform>
        </translation>
    </message>
    <message>
        <source>(simulated)</source>
        <translation>(simulerad)</translation>
    </message>
    <message>
        <source>(not available here)</source>
        <translation>(inte tillgänglig här)</translation>
    </message>
    <message>
        <source>Controls</source>
        <translation>Inställningar</translation>
    </message>
    <message>
        <source>Instruments</source>
        <translation>Instrument</translation>
    </message>
    <message>
        <source>Notes</source>
        <translation>Anteckningar</translation>
    </message>
    <message>
        <source>Trace</source>
        <translation>Spår</translation>
    </message>
    <message>
        <source>Code</source>
        <translation>Kod</translation>
    </message>
    <message>
        <source>Predict</source>
        <translation>Förutsäg</translation>
    </message>
    <message>
        <source>Train</source>
        <translation>Träna</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Avbryt</translation>
    </message>
    <message>
        <source>stop this computation (Esc)</source>
        <translation>stoppa den här beräkningen (Esc)</translation>
    </message>
    <message>
        <source>Map</source>
        <translation>Karta</translation>
    </message>
    <message>
        <source>computing…</source>
        <translation>beräknar…</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>Ångra</translation>
    </message>
    <message>
        <source>Undo {what}</source>
        <translation>Ångra {what}</translation>
    </message>
    <message>
        <source>Redo</source>
        <translation>Gör om</translation>
    </message>
    <message>
        <source>Redo {what}</source>
        <translation>Gör om {what}</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>Kortkommandon</translation>
    </message>
    <message>
        <source>About QKV Lab</source>
        <translation>Om QKV Lab</translation>
    </message>
    <message>
        <source>Every intermediate of a GPT-2-style block, live, with real numbers.</source>
        <translation>Varje mellanresultat i ett block i GPT-2-stil, live, med riktiga tal.</translation>
    </message>
    <message>
        <source>Show every head&apos;s share (Knock heads out)</source>
        <translation>Visa varje huvuds andel (Slå ut huvuden)</translation>
    </message>
    <message>
        <source>Change the model&apos;s shape?</source>
        <translation>Ändra modellens form?</translation>
    </message>
    <message>
        <source>{model} has {field} = {old}. With {field} = {new} its trained weights no longer fit: the lab would draw random weights of the new shape from seed {seed} (the words stay).</source>
        <translation>{model} har {field} = {old}. Med {field} = {new} passar de tränade vikterna inte längre: labbet skulle dra slumpvikter av den nya formen från frö {seed} (orden blir kvar).</translation>
    </message>
    <message>
        <source>Use random weights</source>
        <translation>Använd slumpvikter</translation>
    </message>
    <message>
        <source>Keep the model: A/B d_head × 4</source>
        <translation>Behåll modellen: A/B d_head × 4</translation>
    </message>
    <message>
        <source>Keep the model: the √d_k lab</source>
        <translation>Behåll modellen: √d_k-labbet</translation>
    </message>
    <message>
        <source>Query {old}&apos;s row is already one-hot (nothing can sharpen it): asking about query {new} instead.</source>
        <translation>Raden för query {old} är redan one-hot (inget kan skärpa den): frågar om query {new} i stället.</translation>
    </message>
    <message>
        <source>backend {label}</source>
        <translation>backend {label}</translation>
    </message>
    <message>
        <source>attention shown · render {render} ms · MLP computing…</source>
        <translation>attention visas · ritning {render} ms · MLP beräknas…</translation>
    </message>
    <message>
        <source>compute {compute} ms{rows} · render {render} ms</source>
        <translation>beräkning {compute} ms{rows} · ritning {render} ms</translation>
    </message>
    <message>
        <source>{bytes} copied from the GPU</source>
        <translation>{bytes} kopierat från GPU:n</translation>
    </message>
    <message>
        <source>recomputed rows {first}..{last}</source>
        <translation>omräknade rader {first}..{last}</translation>
    </message>
    <message>
        <source>no row recomputed ({T} reused)</source>
        <translation>ingen rad omräknad ({T} återanvända)</translation>
    </message>
    <message>
        <source>T = {T} · n_layers {n_layers} · memory {memory}</source>
        <translation>T = {T} · n_layers {n_layers} · minne {memory}</translation>
    </message>
    <message>
        <source>GGUF file or a Hugging Face folder&apos;s config.json (*.gguf config.json *.safetensors)</source>
        <translation>GGUF-fil eller config.json i en Hugging Face-mapp (*.gguf config.json *.safetensors)</translation>
    </message>
    <message>
        <source>{source!r}: no such file or folder. Did you mean {key} ({title}, packaged with the lab)?</source>
        <translation>{source!r}: ingen sådan fil eller mapp. Menade du {key} ({title}, som installeras med labbet)?</translation>
    </message>
    <message>
        <source>{source!r}: no such GGUF file</source>
        <translation>{source!r}: ingen sådan GGUF-fil</translation>
    </message>
    <message>
        <source>{source!r}: no such model folder or file (a Hugging Face folder, a .gguf file, or one of: {keys})</source>
        <translation>{source!r}: ingen sådan modellmapp eller fil (en Hugging Face-mapp, en .gguf-fil eller en av: {keys})</translation>
    </message>
    <message>
        <source>not opened, too large for this machine: {why}</source>
        <translation>inte öppnad, för stor för den här datorn: {why}</translation>
    </message>
    <message>
        <source>Use trained weights</source>
        <translation>Använd tränade vikter</translation>
    </message>
    <message>
        <source>{title} — install: {command}</source>
        <translation>{title} — installera: {command}</translation>
    </message>
    <message>
        <source>starting… (loading torch)</source>
        <translation>startar… (laddar torch)</translation>
    </message>
    <message>
        <source>Save weights</source>
        <translation>Spara vikter</translation>
    </message>
    <message>
        <source>Could not save the weights to {path}: {why}</source>
        <translation>Kunde inte spara vikterna till {path}: {why}</translation>
    </message>
    <message>
        <source>Saved the weights to {path} ({size}).</source>
        <translation>Sparade vikterna till {path} ({size}).</translation>
    </message>
    <message>
        <source>Open weights</source>
        <translation>Öppna vikter</translation>
    </message>
    <message>
        <source>Open model folder or GGUF file</source>
        <translation>Öppna modellmapp eller GGUF-fil</translation>
    </message>
    <message>
        <source>Opening {what}</source>
        <translation>Öppnar {what}</translation>
    </message>
    <message>
        <source>Download a model</source>
        <translation>Ladda ner en modell</translation>
    </message>
    <message>
        <source>From the Hugging Face hub (safetensors only):</source>
        <translation>Från Hugging Face-hubben (bara safetensors):</translation>
    </message>
    <message>
        <source>Downloading {what}</source>
        <translation>Laddar ner {what}</translation>
    </message>
    <message>
        <source>A model is being opened: wait for it, or cancel it first.</source>
        <translation>En modell håller på att öppnas: vänta på den eller avbryt den först.</translation>
    </message>
    <message>
        <source>{what} cancelled: the model on screen stays.</source>
        <translation>{what} avbröts: modellen som visas blir kvar.</translation>
    </message>
    <message>
        <source>{what}: not enough memory</source>
        <translation>{what}: inte tillräckligt med minne</translation>
    </message>
    <message>
        <source>{what} failed: {why}</source>
        <translation>{what} misslyckades: {why}</translation>
    </message>
    <message>
        <source>Open model {title}</source>
        <translation>Öppna modellen {title}</translation>
    </message>
    <message numerus="yes">
        <source>%n head(s) sharing {kv} K/V heads</source>
        <translation>
            <numerusform>%n head som delar {kv} K/V-headar</numerusform>
            <numerusform>%n headar som delar {kv} K/V-headar</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n head(s)</source>
        <translation>
            <numerusform>%n head</numerusform>
            <numerusform>%n headar</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Opened {label}: %n layer(s), {heads}, d_model {d_model}. Type text to tokenize it with the model&apos;s own tokenizer.</source>
        <translation>
            <numerusform>Öppnade {label}: %n lager, {heads}, d_model {d_model}. Skriv text för att dela upp den i tokens med modellens egen tokenizer.</numerusform>
            <numerusform>Öppnade {label}: %n lager, {heads}, d_model {d_model}. Skriv text för att dela upp den i tokens med modellens egen tokenizer.</numerusform>
        </translation>
    </message>
    <message>
        <source>Could not open {where}: {why}</source>
        <translation>Kunde inte öppna {where}: {why}</translation>
    </message>
    <message>
        <source>Open weights {name}</source>
        <translation>Öppna vikterna {name}</translation>
    </message>
    <message>
        <source>Presentation mode — F1 or ? lists the keys; Esc or F11 leaves.</source>
        <translation>Presentationsläge — F1 eller ? visar tangenterna; Esc eller F11 avslutar.</translation>
    </message>
    <message>
        <source>Presentation mode</source>
        <translation>Presentationsläge</translation>
    </message>
    <message>
        <source>Everywhere</source>
        <translation>Överallt</translation>
    </message>
    <message>
        <source>random (seed {seed})</source>
        <translation>slumpade (frö {seed})</translation>
    </message>
    <message>
        <source>trained on the repeat task</source>
        <translation>tränade på upprepningsuppgiften</translation>
    </message>
    <message>
        <source>The sequence needs at least one token: type a word or add one with +.</source>
        <translation>Sekvensen behöver minst en token: skriv ett ord eller lägg till ett med +.</translation>
    </message>
    <message>
        <source>The weight seed must be a whole number from 0 to {max} (it was {seed}).</source>
        <translation>Viktfröet måste vara ett heltal från 0 till {max} (det var {seed}).</translation>
    </message>
    <message>
        <source>New sizes need new weights: drawn at random from seed {seed}; the weights in use ({weights}) have the old shapes.</source>
        <translation>Nya storlekar kräver nya vikter: dragna slumpmässigt från frö {seed}; vikterna som användes ({weights}) har de gamla formerna.</translation>
    </message>
    <message>
        <source>Set {fields}</source>
        <translation>Sätt {fields}</translation>
    </message>
    <message>
        <source>no preset named {name}</source>
        <translation>ingen förinställning som heter {name}</translation>
    </message>
    <message>
        <source>Load preset {name}</source>
        <translation>Läs in förinställningen {name}</translation>
    </message>
    <message>
        <source>Edit tokens</source>
        <translation>Redigera tokens</translation>
    </message>
    <message>
        <source>This text was not tokenized ({why}); the tokens stay as they were.</source>
        <translation>Texten tokeniserades inte ({why}); token förblir som de var.</translation>
    </message>
    <message>
        <source>Type “{text}”</source>
        <translation>Skriv ”{text}”</translation>
    </message>
    <message>
        <source>Left out {marks}: the toy vocabulary has no punctuation marks.</source>
        <translation>Utelämnade {marks}: leksaksvokabulären har inga skiljetecken.</translation>
    </message>
    <message>
        <source>Move “{word}” to position {i}</source>
        <translation>Flytta ”{word}” till position {i}</translation>
    </message>
    <message>
        <source>Replace “{old}” with “{new}”</source>
        <translation>Ersätt ”{old}” med ”{new}”</translation>
    </message>
    <message>
        <source>No token holds “{text}”.</source>
        <translation>Ingen token innehåller “{text}”.</translation>
    </message>
    <message>
        <source>Add “{word}”</source>
        <translation>Lägg till ”{word}”</translation>
    </message>
    <message>
        <source>Remove “{word}”</source>
        <translation>Ta bort ”{word}”</translation>
    </message>
    <message>
        <source>Random weights, seed {seed}</source>
        <translation>Slumpade vikter, frö {seed}</translation>
    </message>
    <message>
        <source>Use {source} weights</source>
        <translation>Använd vikterna {source}</translation>
    </message>
    <message>
        <source>There is no head {head} in layer {layer}.</source>
        <translation>Det finns inget huvud {head} i lager {layer}.</translation>
    </message>
    <message>
        <source>Put head {layer}.{head} back</source>
        <translation>Sätt tillbaka huvud {layer}.{head}</translation>
    </message>
    <message>
        <source>Knock head {layer}.{head} out</source>
        <translation>Slå ut huvud {layer}.{head}</translation>
    </message>
    <message>
        <source>Put every head back</source>
        <translation>Sätt tillbaka alla huvuden</translation>
    </message>
    <message>
        <source>Patch two prompts</source>
        <translation>Patcha två prompter</translation>
    </message>
    <message>
        <source>Backend {backend}</source>
        <translation>Backend {backend}</translation>
    </message>
    <message>
        <source>Computation cancelled.</source>
        <translation>Beräkningen avbröts.</translation>
    </message>
    <message>
        <source>Out of memory: use fewer tokens, fewer layers or smaller dimensions.</source>
        <translation>Minnet räcker inte: använd färre tokens, färre lager eller mindre dimensioner.</translation>
    </message>
    <message>
        <source>Computation failed: {error}</source>
        <translation>Beräkningen misslyckades: {error}</translation>
    </message>
    <message>
        <source> — the settings on screen are back (Undo/Redo tries that step again)</source>
        <translation> — inställningarna som visas är tillbaka (Ångra/Gör om provar det steget igen)</translation>
    </message>
    <message>
        <source>Nothing has been computed yet, so the views are empty: any edit (a token, a size, another preset) computes again.</source>
        <translation>Inget har beräknats än, så vyerna är tomma: varje ändring (en token, en storlek, en annan förinställning) räknar igen.</translation>
    </message>
    <message>
        <source> — showing random weights (seed {seed}) instead; open other weights from the Model menu.</source>
        <translation> — visar slumpade vikter (frö {seed}) i stället; öppna andra vikter från menyn Modell.</translation>
    </message>
    <message>
        <source>Training runs on the toy model&apos;s sizes with the causal mask (load the toy preset first).</source>
        <translation>Träningen körs med leksaksmodellens storlekar och kausal mask (läs in förinställningen toy först).</translation>
    </message>
    <message>
        <source>Training is running: pause or stop it before editing (the views follow the weights as they train).</source>
        <translation>Träningen pågår: pausa eller stoppa den innan du ändrar något (vyerna följer vikterna medan de tränas).</translation>
    </message>
    <message>
        <source>training, step {step}</source>
        <translation>träning, steg {step}</translation>
    </message>
    <message>
        <source>Training stopped: {why}</source>
        <translation>Träningen stoppades: {why}</translation>
    </message>
    <message>
        <source>Training stopped before its first step.</source>
        <translation>Träningen stoppades före sitt första steg.</translation>
    </message>
    <message numerus="yes">
        <source>trained here: seed {seed}, %n step(s)</source>
        <translation>
            <numerusform>tränade här: frö {seed}, %n steg</numerusform>
            <numerusform>tränade här: frö {seed}, %n steg</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Train %n step(s) (seed {seed})</source>
        <translation>
            <numerusform>Träna %n steg (frö {seed})</numerusform>
            <numerusform>Träna %n steg (frö {seed})</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Training stopped after %n step(s) in {seconds} s</source>
        <translation>
            <numerusform>Träningen stoppades efter %n steg på {seconds} s</numerusform>
            <numerusform>Träningen stoppades efter %n steg på {seconds} s</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Training finished after %n step(s) in {seconds} s</source>
        <translation>
            <numerusform>Träningen blev klar efter %n steg på {seconds} s</numerusform>
            <numerusform>Träningen blev klar efter %n steg på {seconds} s</numerusform>
        </translation>
    </message>
    <message>
        <source>; final loss {loss}</source>
        <translation>; slutlig förlust {loss}</translation>
    </message>
    <message>
        <source>. Undo returns to the weights before.</source>
        <translation>. Ångra går tillbaka till vikterna från före.</translation>
    </message>
    <message>
        <source>Turn the 1/√d_head scaling off</source>
        <translation>Stäng av skalningen med 1/√d_head</translation>
    </message>
    <message>
        <source>Multiply d_head by 4</source>
        <translation>Multiplicera d_head med 4</translation>
    </message>
    <message>
        <source>Turn the causal mask off</source>
        <translation>Stäng av den kausala masken</translation>
    </message>
    <message>
        <source>Move the query&apos;s token to the front</source>
        <translation>Flytta queryns token först</translation>
    </message>
    <message>
        <source>Switch to the next head</source>
        <translation>Byt till nästa head</translation>
    </message>
    <message>
        <source>Load it wrong: {mistake}</source>
        <translation>Läs in den fel: {mistake}</translation>
    </message>
    <message>
        <source>Which key will get query i&apos;s largest weight?</source>
        <translation>Vilken key får störst vikt från query i?</translation>
    </message>
    <message>
        <source>Will query i&apos;s row get sharper (a larger top weight)?</source>
        <translation>Blir raden för query i skarpare (en större största vikt)?</translation>
    </message>
    <message>
        <source>Predict first, then test: pick a change, say what you expect, and let the lab measure.</source>
        <translation>Förutsäg först, testa sedan: välj en ändring, säg vad du väntar dig och låt labbet mäta.</translation>
    </message>
    <message>
        <source>Experiment</source>
        <translation>Experiment</translation>
    </message>
    <message>
        <source>1. change</source>
        <translation>1. ändring</translation>
    </message>
    <message>
        <source>2. question</source>
        <translation>2. fråga</translation>
    </message>
    <message>
        <source>your answer</source>
        <translation>ditt svar</translation>
    </message>
    <message>
        <source>Let the lab suggest one</source>
        <translation>Låt labbet föreslå en</translation>
    </message>
    <message>
        <source>3. Test it (A/B)</source>
        <translation>3. Testa (A/B)</translation>
    </message>
    <message>
        <source>the change is made to a copy, B, shown beside the lab&apos;s A</source>
        <translation>ändringen görs på en kopia, B, som visas bredvid labbets A</translation>
    </message>
    <message>
        <source>Keep the change</source>
        <translation>Behåll ändringen</translation>
    </message>
    <message>
        <source>make B the lab&apos;s inputs (Edit ▸ Undo takes it back)</source>
        <translation>gör B till labbets indata (Redigera ▸ Ångra tar tillbaka det)</translation>
    </message>
    <message>
        <source>score: no predictions yet</source>
        <translation>resultat: inga förutsägelser än</translation>
    </message>
    <message numerus="yes">
        <source>score this session: {correct} of %n prediction(s) right</source>
        <translation>
            <numerusform>resultat den här sessionen: {correct} av %n förutsägelse rätt</numerusform>
            <numerusform>resultat den här sessionen: {correct} av %n förutsägelser rätt</numerusform>
        </translation>
    </message>
    <message>
        <source>query i = {i} (“{word}”), layer {layer}, head {head} — pick another query by clicking a token chip.</source>
        <translation>query i = {i} (”{word}”), lager {layer}, head {head} — välj en annan query genom att klicka på en token.</translation>
    </message>
    <message>
        <source>yes, sharper</source>
        <translation>ja, skarpare</translation>
    </message>
    <message>
        <source>no, flatter or the same</source>
        <translation>nej, plattare eller likadan</translation>
    </message>
    <message>
        <source>which block the stations show</source>
        <translation>vilket block stationerna visar</translation>
    </message>
    <message>
        <source>{preset} has {blocks} blocks; the lab computes {n} (a banded one: window {window}) with its shapes and random weights, shown as layer {shown}: it stands for any of its banded ones.</source>
        <translation>{preset} har {blocks} block; labbet beräknar {n} (ett bandat: fönster {window}) med dess former och slumpade vikter, visat som lager {shown}: det står för vilket som helst av dess bandade block.</translation>
    </message>
    <message>
        <source>{preset} has {blocks} blocks; the lab computes {n} with its shapes and random weights, shown as layer {shown}: it stands for any of them.</source>
        <translation>{preset} har {blocks} block; labbet beräknar {n} med dess former och slumpade vikter, visat som lager {shown}: det står för vilket som helst av dem.</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>View</source>
        <translation>Visning</translation>
    </message>
    <message>
        <source>Compute</source>
        <translation>Beräkning</translation>
    </message>
    <message>
        <source>preset</source>
        <translation>förinställning</translation>
    </message>
    <message>
        <source>weights</source>
        <translation>vikter</translation>
    </message>
    <message>
        <source>weight seed</source>
        <translation>viktfrö</translation>
    </message>
    <message>
        <source>the pass without the knocked-out heads</source>
        <translation>körningen utan de utslagna huvudena</translation>
    </message>
    <message>
        <source>each head&apos;s share of logit “{w}”</source>
        <translation>varje huvuds andel av logit “{w}”</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>lager</translation>
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
        <translation>Fråga i = {i}: modellen förutsäger “{w}” (p = {p:.3f}, logit {lg:.2f}). Huvuden {heads:.2f} + MLP:er {mlps:.2f} + inbäddning och bias {rest:.2f} = {total:.2f} = logiten. Klicka på ett huvud för att slå ut det (z = 0); klicka igen för att sätta tillbaka det (även Redigera ▸ Ångra).</translation>
    </message>
    <message>
        <source>Knocked out: {names}. p(“{w}”) {p0:.3f} → {p1:.3f} ({dp:+.3f}), logit {l0:.2f} → {l1:.2f} ({dl:+.2f}); the prediction is now “{now}”.</source>
        <translation>Utslagna: {names}. p(“{w}”) {p0:.3f} → {p1:.3f} ({dp:+.3f}), logit {l0:.2f} → {l1:.2f} ({dl:+.2f}); förutsägelsen är nu “{now}”.</translation>
    </message>
    <message>
        <source>Knocked out: {names}. Computing the pass without them…</source>
        <translation>Utslagna: {names}. Beräknar körningen utan dem…</translation>
    </message>
    <message>
        <source>embed</source>
        <translation>inbäddning</translation>
    </message>
    <message>
        <source>p after each layer, query i = {i}</source>
        <translation>p efter varje lager, fråga i = {i}</translation>
    </message>
    <message>
        <source>after layer</source>
        <translation>efter lager</translation>
    </message>
    <message>
        <source>p(“{w}”) by layer</source>
        <translation>p(“{w}”) per lager</translation>
    </message>
    <message>
        <source>the embedding</source>
        <translation>inbäddningen</translation>
    </message>
    <message>
        <source>layer {L}</source>
        <translation>lager {L}</translation>
    </message>
    <message>
        <source>The residual stream at query i = {i}, through the final norm and the unembedding after every layer. “{w}” (the prediction, p = {p:.3f}) is the top token from {where} on.</source>
        <translation>Residualströmmen vid fråga i = {i}, genom den sista normen och avinbäddningen efter varje lager. “{w}” (förutsägelsen, p = {p:.3f}) är den översta token från och med {where}.</translation>
    </message>
    <message>
        <source>share of q·k</source>
        <translation>andel av q·k</translation>
    </message>
    <message>
        <source>frequency pair (d, d + r/2)</source>
        <translation>frekvenspar (d, d + r/2)</translation>
    </message>
    <message>
        <source>dimension d</source>
        <translation>dimensionen d</translation>
    </message>
    <message>
        <source>q_i·k_j by {what}</source>
        <translation>q_i·k_j per {what}</translation>
    </message>
    <message>
        <source>who wrote k_j (j = {j})</source>
        <translation>vem skrev k_j (j = {j})</translation>
    </message>
    <message>
        <source>who wrote q_i (i = {i})</source>
        <translation>vem skrev q_i (i = {i})</translation>
    </message>
    <message>
        <source>Head {L}.{h}, query i = {i} “{wi}”, key j = {j} “{wj}”: q_i·k_j = {s:.3f} (× {scale:.3f} = the scaled score). It is the sum of the bars above, and of the bars of each source chart: the residual stream that built k_j, split into the embedding, each earlier head&apos;s output, each earlier MLP and the biases (the norm&apos;s scale held fixed). The largest share of the key: &lt;b&gt;{kbest}&lt;/b&gt; ({kv:.2f}); of the query: &lt;b&gt;{qbest}&lt;/b&gt; ({qv:.2f}).</source>
        <translation>Huvud {L}.{h}, fråga i = {i} “{wi}”, nyckel j = {j} “{wj}”: q_i·k_j = {s:.3f} (× {scale:.3f} = den skalade poängen). Den är summan av staplarna ovan, och av staplarna i varje källdiagram: residualströmmen som byggde k_j, delad i inbäddningen, varje tidigare huvuds utdata, varje tidigare MLP och biasen (normens skala hållen fast). Största andelen av nyckeln: &lt;b&gt;{kbest}&lt;/b&gt; ({kv:.2f}); av frågan: &lt;b&gt;{qbest}&lt;/b&gt; ({qv:.2f}).</translation>
    </message>
    <message>
        <source>induction</source>
        <translation>induktion</translation>
    </message>
    <message>
        <source>previous token</source>
        <translation>föregående token</translation>
    </message>
    <message>
        <source>sink (position 0)</source>
        <translation>sänka (position 0)</translation>
    </message>
    <message>
        <source>duplicate token</source>
        <translation>dubblettoken</translation>
    </message>
    <message>
        <source>Running the model on a random sequence repeated…</source>
        <translation>Kör modellen på en upprepad slumpmässig följd…</translation>
    </message>
    <message>
        <source>the head finder&apos;s pass</source>
        <translation>huvudsökarens körning</translation>
    </message>
    <message>
        <source>{what}: best {L}.{h}</source>
        <translation>{what}: bäst {L}.{h}</translation>
    </message>
    <message>
        <source>On a random sequence of {n} tokens repeated once ({T} tokens): an &lt;b&gt;induction&lt;/b&gt; head looks, from a token&apos;s second copy, at the token that followed its first copy; a &lt;b&gt;previous-token&lt;/b&gt; head at the token before. The strongest here: induction {il}.{ih} ({iv:.2f}), previous token {pl}.{ph} ({pv:.2f}). Click a head to open it.</source>
        <translation>På en slumpmässig följd av {n} tokens upprepad en gång ({T} tokens): ett &lt;b&gt;induktionshuvud&lt;/b&gt; tittar, från en tokens andra kopia, på den token som följde dess första kopia; ett &lt;b&gt;föregående-token&lt;/b&gt;-huvud på token före. Starkast här: induktion {il}.{ih} ({iv:.2f}), föregående token {pl}.{ph} ({pv:.2f}). Klicka på ett huvud för att öppna det.</translation>
    </message>
    <message>
        <source>backend</source>
        <translation>backend</translation>
    </message>
    <message>
        <source>in use</source>
        <translation>används</translation>
    </message>
    <message>
        <source>load a preset: its sizes and its default tokens</source>
        <translation>läs in en förinställning: dess storlekar och dess standardtokens</translation>
    </message>
    <message>
        <source>custom</source>
        <translation>egen</translation>
    </message>
    <message>
        <source>width of the residual stream</source>
        <translation>residualströmmens bredd</translation>
    </message>
    <message>
        <source>attention heads per block</source>
        <translation>attention-headar per block</translation>
    </message>
    <message>
        <source>width of each head&apos;s q, k and v (d_k); any value ≥ 1</source>
        <translation>bredden på varje heads q, k och v (d_k); vilket värde ≥ 1 som helst</translation>
    </message>
    <message>
        <source>drag to change d_head live</source>
        <translation>dra för att ändra d_head direkt</translation>
    </message>
    <message>
        <source>the longest sequence the model accepts</source>
        <translation>den längsta sekvens modellen tar emot</translation>
    </message>
    <message>
        <source>number of blocks</source>
        <translation>antal block</translation>
    </message>
    <message>
        <source>causal mask (j &gt; i is −∞)</source>
        <translation>kausal mask (j &gt; i blir −∞)</translation>
    </message>
    <message>
        <source>divide scores by {root}</source>
        <translation>dela poängen med {root}</translation>
    </message>
    <message>
        <source>this model scales its scores by 1/√query_pre_attn_scalar, not 1/√d_head</source>
        <translation>den här modellen skalar sina poäng med 1/√query_pre_attn_scalar, inte 1/√d_head</translation>
    </message>
    <message>
        <source>trained: the toy model trained on repeating sequences (patterns with a story); random: drawn from the seed below</source>
        <translation>tränade: leksaksmodellen tränad på upprepade sekvenser (mönster med en historia); slumpade: dragna från fröet nedan</translation>
    </message>
    <message>
        <source>random weights are drawn from this seed</source>
        <translation>slumpade vikter dras från det här fröet</translation>
    </message>
    <message>
        <source>New d_model, n_heads or d_head draws new weights of that shape from the seed.</source>
        <translation>Ny d_model, n_heads eller d_head drar nya vikter med den formen från fröet.</translation>
    </message>
    <message>
        <source>which head the stations show</source>
        <translation>vilket head stationerna visar</translation>
    </message>
    <message>
        <source>one colour scale per station</source>
        <translation>en färgskala per station</translation>
    </message>
    <message>
        <source>the panels a lesson compares always share a scale (raw, scaled and masked scores; v → p·v → z; the residual adds); this puts the rest of a station&apos;s activations on it too</source>
        <translation>panelerna en lektion jämför delar alltid skala (råa, skalade och maskade poäng; v → p·v → z; residualadditionerna); det här lägger resten av stationens aktiveringar på samma skala</translation>
    </message>
    <message>
        <source>full colour range (outliers set it)</source>
        <translation>hela färgskalan (extremvärden sätter den)</translation>
    </message>
    <message>
        <source>off: a few massive values (a real model&apos;s outlier dimensions) are clipped, marked ▲ and named under their panel, so the rest keep their colours</source>
        <translation>av: några få enorma värden (en riktig modells extremdimensioner) klipps, markeras ▲ och nämns under sin panel, så att resten behåller sina färger</translation>
    </message>
    <message>
        <source>numbers in cells (where they fit)</source>
        <translation>tal i cellerna (där de får plats)</translation>
    </message>
    <message>
        <source>auto: the GPU when one is present, else the CPU</source>
        <translation>auto: GPU:n när det finns en, annars CPU:n</translation>
    </message>
    <message>
        <source>trained (toy task)</source>
        <translation>tränade (leksaksuppgift)</translation>
    </message>
    <message>
        <source>PNG image</source>
        <translation>PNG-bild</translation>
    </message>
    <message>
        <source>SVG (vector, text stays text)</source>
        <translation>SVG (vektor, text förblir text)</translation>
    </message>
    <message>
        <source>PDF (vector)</source>
        <translation>PDF (vektor)</translation>
    </message>
    <message>
        <source>NPZ: every intermediate (numpy)</source>
        <translation>NPZ: alla mellanresultat (numpy)</translation>
    </message>
    <message>
        <source>CSV: this one matrix</source>
        <translation>CSV: just den här matrisen</translation>
    </message>
    <message>
        <source>view</source>
        <translation>vy</translation>
    </message>
    <message>
        <source>format</source>
        <translation>format</translation>
    </message>
    <message>
        <source>PNG size</source>
        <translation>PNG-storlek</translation>
    </message>
    <message>
        <source>font size</source>
        <translation>teckenstorlek</translation>
    </message>
    <message>
        <source>0…1 maps (pattern)</source>
        <translation>kartor för 0…1 (pattern)</translation>
    </message>
    <message>
        <source>signed maps</source>
        <translation>kartor för tal med tecken</translation>
    </message>
    <message>
        <source>background</source>
        <translation>bakgrund</translation>
    </message>
    <message>
        <source>figure</source>
        <translation>figur</translation>
    </message>
    <message>
        <source>white paper (publication)</source>
        <translation>vitt papper (publicering)</translation>
    </message>
    <message>
        <source>dark (for dark slides)</source>
        <translation>mörk (för mörka bilder)</translation>
    </message>
    <message>
        <source>width</source>
        <translation>bredd</translation>
    </message>
    <message>
        <source>numbers in the cells (where they fit)</source>
        <translation>tal i cellerna (där de får plats)</translation>
    </message>
    <message>
        <source>title with layer, head and tokens</source>
        <translation>rubrik med lager, head och tokens</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>Exportera…</translation>
    </message>
    <message>
        <source>Every intermediate of the current Trace, keys like &apos;pattern/0&apos;, with the config and tokens as metadata (&apos;meta&apos;).</source>
        <translation>Alla mellanresultat i den aktuella Trace, nycklar som &apos;pattern/0&apos;, med config och tokens som metadata (&apos;meta&apos;).</translation>
    </message>
    <message>
        <source>A CSV holds one matrix: choose a single view (not the composed &apos;{view}&apos;).</source>
        <translation>En CSV rymmer en matris: välj en enskild vy (inte den sammansatta &apos;{view}&apos;).</translation>
    </message>
    <message>
        <source>{w} × {h} px at 96 dpi → PNG {pw} × {ph} px</source>
        <translation>{w} × {h} px vid 96 dpi → PNG {pw} × {ph} px</translation>
    </message>
    <message>
        <source>{w} × {h} px ({pw} × {ph} pt page)</source>
        <translation>{w} × {h} px (sida på {pw} × {ph} pt)</translation>
    </message>
    <message>
        <source>pattern, head {h}</source>
        <translation>pattern, head {h}</translation>
    </message>
    <message>
        <source>the whole block for one head: 15 panels from resid_pre to resid_post</source>
        <translation>hela blocket för ett head: 15 paneler från resid_pre till resid_post</translation>
    </message>
    <message>
        <source>pattern of every head in the layer</source>
        <translation>pattern för varje head i lagret</translation>
    </message>
    <message>
        <source>the block as one picture: each station a thumbnail along the residual stream</source>
        <translation>blocket som en bild: varje station en miniatyr längs residualströmmen</translation>
    </message>
    <message>
        <source>the RoPE lab: q and k pair by pair before and after the rotation, the pairs&apos; shares of the score</source>
        <translation>RoPE-labbet: q och k par för par före och efter rotationen, parens andelar av poängen</translation>
    </message>
    <message>
        <source>shared K/V heads: who reads which K/V head, a group&apos;s scores, the cache bytes</source>
        <translation>delade K/V-headar: vem som läser vilken K/V-head, en grupps poäng, cachens byte</translation>
    </message>
    <message>
        <source>windows and sinks: a windowed layer beside a dense one, the reach through layers, the sinks</source>
        <translation>fönster och sänkor: ett lager med fönster bredvid ett tätt, räckvidden genom lagren, sänkorna</translation>
    </message>
    <message>
        <source>the tiled softmax: one query block tile by tile, the running m and ℓ, the bytes moved</source>
        <translation>den blockvisa softmaxen: ett queryblock bricka för bricka, löpande m och ℓ, flyttade byte</translation>
    </message>
    <message>
        <source>A/B: the scores and pattern under two conditions, and B − A</source>
        <translation>A/B: poäng och mönster under två villkor, och B − A</translation>
    </message>
    <message>
        <source>knock heads out: each head&apos;s and MLP&apos;s share of the predicted token&apos;s logit</source>
        <translation>slå ut huvuden: varje huvuds och MLP:s andel av den förutsagda tokens logit</translation>
    </message>
    <message>
        <source>the logit lens: the prediction&apos;s probability after every layer</source>
        <translation>logitlinsen: förutsägelsens sannolikhet efter varje lager</translation>
    </message>
    <message>
        <source>why this key: q·k by frequency pair and by the source that wrote q and k</source>
        <translation>varför denna nyckel: q·k per frekvenspar och per källan som skrev q och k</translation>
    </message>
    <message>
        <source>the head finder: induction, previous-token, sink and duplicate scores per head</source>
        <translation>huvudsökaren: induktions-, föregående-token-, sänk- och dubblettpoäng per huvud</translation>
    </message>
    <message>
        <source>station: {panels}</source>
        <translation>station: {panels}</translation>
    </message>
    <message>
        <source>layer {layer}</source>
        <translation>lager {layer}</translation>
    </message>
    <message>
        <source>head {head}</source>
        <translation>head {head}</translation>
    </message>
    <message>
        <source>random weights (seed {seed})</source>
        <translation>slumpade vikter (frö {seed})</translation>
    </message>
    <message>
        <source>residual stream</source>
        <translation>residualström</translation>
    </message>
    <message>
        <source>not in the vocabulary: {words}. The {n} words are: {vocab}</source>
        <translation>finns inte i vokabulären: {words}. De {n} orden är: {vocab}</translation>
    </message>
    <message>
        <source>Clear trace</source>
        <translation>Rensa spåret</translation>
    </message>
    <message>
        <source>Click a cell of q, k or v (Q·K·V station) or a score (Scores station) to see the multiplications that make it.</source>
        <translation>Klicka på en cell i q, k eller v (stationen Q·K·V) eller på en poäng (stationen Poäng) för att se multiplikationerna bakom den.</translation>
    </message>
    <message>
        <source>left</source>
        <translation>vänster</translation>
    </message>
    <message>
        <source>right</source>
        <translation>höger</translation>
    </message>
    <message>
        <source>product</source>
        <translation>produkt</translation>
    </message>
    <message>
        <source>running Σ</source>
        <translation>löpande Σ</translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;attn_scores_raw[h={h}, i={i}, j={j}]&lt;/b&gt; (layer {layer}) = Σ&lt;sub&gt;c&lt;/sub&gt; {left}[c] · {right}[c] — %n pair(s)</source>
        <translation>
            <numerusform>&lt;b&gt;attn_scores_raw[h={h}, i={i}, j={j}]&lt;/b&gt; (lager {layer}) = Σ&lt;sub&gt;c&lt;/sub&gt; {left}[c] · {right}[c] — %n par</numerusform>
            <numerusform>&lt;b&gt;attn_scores_raw[h={h}, i={i}, j={j}]&lt;/b&gt; (lager {layer}) = Σ&lt;sub&gt;c&lt;/sub&gt; {left}[c] · {right}[c] — %n par</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;{name}[{row}, h={h}, c={c}]&lt;/b&gt; (layer {layer}) = Σ&lt;sub&gt;d&lt;/sub&gt; {left}[d] · {right}[d] + bias — %n pair(s)</source>
        <translation>
            <numerusform>&lt;b&gt;{name}[{row}, h={h}, c={c}]&lt;/b&gt; (lager {layer}) = Σ&lt;sub&gt;d&lt;/sub&gt; {left}[d] · {right}[d] + bias — %n par</numerusform>
            <numerusform>&lt;b&gt;{name}[{row}, h={h}, c={c}]&lt;/b&gt; (lager {layer}) = Σ&lt;sub&gt;d&lt;/sub&gt; {left}[d] · {right}[d] + bias — %n par</numerusform>
        </translation>
    </message>
    <message>
        <source>✓ the same</source>
        <translation>✓ samma</translation>
    </message>
    <message>
        <source>✗ not the same</source>
        <translation>✗ inte samma</translation>
    </message>
    <message>
        <source>forbidden by the mask → −∞ → probability 0</source>
        <translation>förbjuden av masken → −∞ → sannolikhet 0</translation>
    </message>
    <message>
        <source>allowed by the mask (j ≤ i)</source>
        <translation>tillåten av masken (j ≤ i)</translation>
    </message>
    <message>
        <source>allowed (no causal mask)</source>
        <translation>tillåten (ingen kausal mask)</translation>
    </message>
    <message numerus="yes">
        <source>Σ of the %n product(s) = &lt;b&gt;{total}&lt;/b&gt; (the view shows {cell}: {check})&lt;br&gt;× {scale} (1/√d_head) = &lt;b&gt;{scaled}&lt;/b&gt;&lt;br&gt;mask: {mask}&lt;br&gt;pattern[h, i, j] after the softmax = &lt;b&gt;{p}&lt;/b&gt;</source>
        <translation>
            <numerusform>Σ av %n produkt = &lt;b&gt;{total}&lt;/b&gt; (vyn visar {cell}: {check})&lt;br&gt;× {scale} (1/√d_head) = &lt;b&gt;{scaled}&lt;/b&gt;&lt;br&gt;mask: {mask}&lt;br&gt;pattern[h, i, j] efter softmax = &lt;b&gt;{p}&lt;/b&gt;</numerusform>
            <numerusform>Σ av de %n produkterna = &lt;b&gt;{total}&lt;/b&gt; (vyn visar {cell}: {check})&lt;br&gt;× {scale} (1/√d_head) = &lt;b&gt;{scaled}&lt;/b&gt;&lt;br&gt;mask: {mask}&lt;br&gt;pattern[h, i, j] efter softmax = &lt;b&gt;{p}&lt;/b&gt;</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Σ of the %n product(s) = {sum}&lt;br&gt;+ bias {bias}&lt;br&gt;= &lt;b&gt;{total}&lt;/b&gt; (the view shows {cell}: {check})</source>
        <translation>
            <numerusform>Σ av %n produkt = {sum}&lt;br&gt;+ bias {bias}&lt;br&gt;= &lt;b&gt;{total}&lt;/b&gt; (vyn visar {cell}: {check})</numerusform>
            <numerusform>Σ av de %n produkterna = {sum}&lt;br&gt;+ bias {bias}&lt;br&gt;= &lt;b&gt;{total}&lt;/b&gt; (vyn visar {cell}: {check})</numerusform>
        </translation>
    </message>
    <message>
        <source>code of</source>
        <translation>kod för</translation>
    </message>
    <message>
        <source>backend in use</source>
        <translation>backend som används</translation>
    </message>
    <message>
        <source>whose code to show: the reference (reads like the equations), the backend that computed this view, or another</source>
        <translation>vems kod som visas: referensen (läses som ekvationerna), den backend som beräknade vyn, eller en annan</translation>
    </message>
    <message>
        <source>{backend} backend · {path} · {function} · line {line}</source>
        <translation>backend {backend} · {path} · {function} · rad {line}</translation>
    </message>
    <message>
        <source>open the instruments in a window of their own (again: back into the dock)</source>
        <translation>öppna instrumenten i ett eget fönster (igen: tillbaka till panelen)</translation>
    </message>
    <message>
        <source>compare two heads: their k, v, pattern and share of attn_out, and A − B</source>
        <translation>jämför två headar: deras k, v, pattern och andel av attn_out, samt A − B</translation>
    </message>
    <message>
        <source>A: layer</source>
        <translation>A: lager</translation>
    </message>
    <message>
        <source>{name} · layer {layer} head {head}</source>
        <translation>{name} · lager {layer} head {head}</translation>
    </message>
    <message>
        <source>rows: k, v [T, d_head] · pattern [T, T] · result [T, d_model]; one colour scale per row for A and B</source>
        <translation>rader: k, v [T, d_head] · pattern [T, T] · result [T, d_model]; en färgskala per rad för A och B</translation>
    </message>
    <message>
        <source>without the mask, query i can see key i+1 — the very token it has to predict</source>
        <translation>utan masken kan query i se key i+1 — just den token den ska förutsäga</translation>
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
        <translation>pattern utan den</translation>
    </message>
    <message>
        <source>pattern with the causal mask</source>
        <translation>pattern med kausal mask</translation>
    </message>
    <message>
        <source>pattern (the mask is off now)</source>
        <translation>pattern (masken är avstängd nu)</translation>
    </message>
    <message>
        <source>computing the unmasked pattern…</source>
        <translation>beräknar pattern utan mask…</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:{warn}&apos;&gt;Red boxes&lt;/span&gt;: key j = i+1, the token query i must predict. Without the mask, query rows put &lt;b&gt;{answer}&lt;/b&gt; of their weight on it on average, and &lt;b&gt;{future}&lt;/b&gt; on all future keys; with the mask: 0%. Trained without the mask, a model would learn to read the answer there — and fail at generation, where the next token does not exist yet.</source>
        <translation>&lt;span style=&apos;color:{warn}&apos;&gt;Röda rutor&lt;/span&gt;: key j = i+1, den token som query i ska förutsäga. Utan masken lägger query-raderna i snitt &lt;b&gt;{answer}&lt;/b&gt; av sin vikt där, och &lt;b&gt;{future}&lt;/b&gt; på alla framtida keys; med masken: 0 %. Tränad utan mask skulle en modell lära sig att läsa svaret där — och misslyckas vid generering, där nästa token ännu inte finns.</translation>
    </message>
    <message numerus="yes">
        <source>q, k with unit-variance entries: q·k sums %n product(s), so its spread is about √{d_k} = &lt;b&gt;{sqrt}&lt;/b&gt;; measured &lt;b&gt;{std}&lt;/b&gt; over {samples} samples. Divided by √d_k: &lt;b&gt;{scaled}&lt;/b&gt;.</source>
        <translation>
            <numerusform>q, k med element med varians 1: q·k summerar %n produkt, så spridningen är ungefär √{d_k} = &lt;b&gt;{sqrt}&lt;/b&gt;; uppmätt &lt;b&gt;{std}&lt;/b&gt; över {samples} stickprov. Delat med √d_k: &lt;b&gt;{scaled}&lt;/b&gt;.</numerusform>
            <numerusform>q, k med element med varians 1: q·k summerar %n produkter, så spridningen är ungefär √{d_k} = &lt;b&gt;{sqrt}&lt;/b&gt;; uppmätt &lt;b&gt;{std}&lt;/b&gt; över {samples} stickprov. Delat med √d_k: &lt;b&gt;{scaled}&lt;/b&gt;.</numerusform>
        </translation>
    </message>
    <message>
        <source>q·k (dashed: ±√d_k = ±{sqrt})</source>
        <translation>q·k (streckat: ±√d_k = ±{sqrt})</translation>
    </message>
    <message>
        <source>q·k / √d_k, on the same scale (dashed: ±1)</source>
        <translation>q·k / √d_k, på samma skala (streckat: ±1)</translation>
    </message>
    <message>
        <source>std of q·k (red), of q·k/√d_k (blue); line √d_k</source>
        <translation>std för q·k (rött), för q·k/√d_k (blått); linjen √d_k</translation>
    </message>
    <message>
        <source>softmax, unscaled: max {max}</source>
        <translation>softmax, oskalad: max {max}</translation>
    </message>
    <message>
        <source>softmax, scaled: max {max}</source>
        <translation>softmax, skalad: max {max}</translation>
    </message>
    <message>
        <source>&lt;b&gt;One softmax row of {T} keys&lt;/b&gt;&lt;br&gt;entropy unscaled &lt;b&gt;{raw}&lt;/b&gt;, scaled &lt;b&gt;{scaled}&lt;/b&gt; nats (uniform: {uniform})&lt;br&gt;&lt;br&gt;&lt;b&gt;Gradients through the softmax&lt;/b&gt;&lt;br&gt;(torch autograd, {rows} rows of {T} keys)&lt;br&gt;&lt;br&gt;median ‖∂L/∂scores‖ per row&lt;br&gt;&amp;nbsp;&amp;nbsp;unscaled: &lt;b&gt;{g_raw}&lt;/b&gt;&lt;br&gt;&amp;nbsp;&amp;nbsp;scaled: &lt;b&gt;{g_scaled}&lt;/b&gt;&lt;br&gt;&lt;br&gt;rows passing back almost nothing (&amp;lt; 1e-3)&lt;br&gt;&amp;nbsp;&amp;nbsp;unscaled: &lt;b&gt;{s_raw}&lt;/b&gt;&amp;nbsp;&amp;nbsp;scaled: &lt;b&gt;{s_scaled}&lt;/b&gt;</source>
        <translation>&lt;b&gt;En softmax-rad med {T} keys&lt;/b&gt;&lt;br&gt;entropi oskalad &lt;b&gt;{raw}&lt;/b&gt;, skalad &lt;b&gt;{scaled}&lt;/b&gt; nats (likformig: {uniform})&lt;br&gt;&lt;br&gt;&lt;b&gt;Gradienter genom softmax&lt;/b&gt;&lt;br&gt;(torch autograd, {rows} rader med {T} keys)&lt;br&gt;&lt;br&gt;median av ‖∂L/∂scores‖ per rad&lt;br&gt;&amp;nbsp;&amp;nbsp;oskalad: &lt;b&gt;{g_raw}&lt;/b&gt;&lt;br&gt;&amp;nbsp;&amp;nbsp;skalad: &lt;b&gt;{g_scaled}&lt;/b&gt;&lt;br&gt;&lt;br&gt;rader som skickar tillbaka nästan inget (&amp;lt; 1e-3)&lt;br&gt;&amp;nbsp;&amp;nbsp;oskalad: &lt;b&gt;{s_raw}&lt;/b&gt;&amp;nbsp;&amp;nbsp;skalad: &lt;b&gt;{s_scaled}&lt;/b&gt;</translation>
    </message>
    <message>
        <source>At d_model = 4096 with one head (d_k = 4096) the unscaled spread is about 64: exp(64) ≈ 6·10²⁷, so one key takes all the weight.</source>
        <translation>Vid d_model = 4096 med ett enda head (d_k = 4096) är den oskalade spridningen ungefär 64: exp(64) ≈ 6·10²⁷, så en enda key tar all vikt.</translation>
    </message>
    <message>
        <source>Slide to 4096 for the d_model = 4096 case.</source>
        <translation>Dra till 4096 för fallet d_model = 4096.</translation>
    </message>
    <message>
        <source>B: layer</source>
        <translation>B: lager</translation>
    </message>
    <message>
        <source>Prefill the prompt</source>
        <translation>Förifyll prompten</translation>
    </message>
    <message>
        <source>Decode one token ▶</source>
        <translation>Avkoda en token ▶</translation>
    </message>
    <message>
        <source>Reset</source>
        <translation>Återställ</translation>
    </message>
    <message>
        <source>Prefill the prompt: it runs once and keeps every layer&apos;s k and v. Then decode one token at a time.</source>
        <translation>Förifyll prompten: den körs en gång och sparar varje lagers k och v. Avkoda sedan en token i taget.</translation>
    </message>
    <message>
        <source>its pattern</source>
        <translation>dess pattern</translation>
    </message>
    <message>
        <source>Prefill runs the prompt once and keeps every layer&apos;s k and v; each decode step then computes one new row.</source>
        <translation>Förifyllningen kör prompten en gång och sparar varje lagers k och v; varje avkodningssteg beräknar sedan en ny rad.</translation>
    </message>
    <message>
        <source>K cache (rot_k: after RoPE), K/V head {g}</source>
        <translation>K-cache (rot_k: efter RoPE), K/V-head {g}</translation>
    </message>
    <message>
        <source>K cache, K/V head {g}</source>
        <translation>K-cache, K/V-head {g}</translation>
    </message>
    <message>
        <source>V cache, K/V head {g}</source>
        <translation>V-cache, K/V-head {g}</translation>
    </message>
    <message>
        <source>the new query row rot_q (after RoPE) of head {head} (after a decode step)</source>
        <translation>den nya query-raden rot_q (efter RoPE) för head {head} (efter ett avkodningssteg)</translation>
    </message>
    <message>
        <source>the new query row q of head {head} (after a decode step)</source>
        <translation>den nya query-raden q för head {head} (efter ett avkodningssteg)</translation>
    </message>
    <message>
        <source>; query head {head} reads K/V head {g}, shared by query heads {first}–{last} (one cached K/V head for {n})</source>
        <translation>; query-head {head} läser K/V-head {g}, som delas av query-headarna {first}–{last} (ett cachat K/V-head för {n})</translation>
    </message>
    <message>
        <source>; a window of {W}: this layer keeps a ring of its last {W} rows</source>
        <translation>; ett fönster på {W}: det här lagret sparar en ring med sina senaste {W} rader</translation>
    </message>
    <message>
        <source> → generated: {words}</source>
        <translation> → genererat: {words}</translation>
    </message>
    <message>
        <source>prompt: {words}</source>
        <translation>prompt: {words}</translation>
    </message>
    <message numerus="yes">
        <source>layer {layer}, head {head} · %n cached row(s)</source>
        <translation>
            <numerusform>lager {layer}, head {head} · %n cachad rad</numerusform>
            <numerusform>lager {layer}, head {head} · %n cachade rader</numerusform>
        </translation>
    </message>
    <message>
        <source>; the outlined row is new this step, the others are reused as they are</source>
        <translation>; den inramade raden är ny i det här steget, de andra återanvänds som de är</translation>
    </message>
    <message numerus="yes">
        <source>step {step}: with the cache &lt;b&gt;{cached}&lt;/b&gt; multiply-adds; recomputing all %n position(s) would take &lt;b&gt;{recompute}&lt;/b&gt; ({ratio}×). Saved so far: &lt;b&gt;{saved}&lt;/b&gt;.</source>
        <translation>
            <numerusform>steg {step}: med cachen &lt;b&gt;{cached}&lt;/b&gt; multiplikation-additioner; att räkna om %n position skulle ta &lt;b&gt;{recompute}&lt;/b&gt; ({ratio}×). Sparat hittills: &lt;b&gt;{saved}&lt;/b&gt;.</numerusform>
            <numerusform>steg {step}: med cachen &lt;b&gt;{cached}&lt;/b&gt; multiplikation-additioner; att räkna om alla %n positioner skulle ta &lt;b&gt;{recompute}&lt;/b&gt; ({ratio}×). Sparat hittills: &lt;b&gt;{saved}&lt;/b&gt;.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>prefill: {macs} multiply-adds for %n position(s) at once. Decode one token ▶ to see the new query row and its pattern.</source>
        <translation>
            <numerusform>förifyllning: {macs} multiplikation-additioner för %n position på en gång. Avkoda en token ▶ för att se den nya query-raden och dess pattern.</numerusform>
            <numerusform>förifyllning: {macs} multiplikation-additioner för %n positioner på en gång. Avkoda en token ▶ för att se den nya query-raden och dess pattern.</numerusform>
        </translation>
    </message>
    <message>
        <source>the head lens: two heads&apos; k, v, pattern and share of attn_out side by side, and A − B</source>
        <translation>headlinsen: två headers k, v, pattern och andel av attn_out sida vid sida, och A − B</translation>
    </message>
    <message>
        <source>the √d_k lab: the spread of q·k against √d_k, a softmax row unscaled and scaled, the std over d_k</source>
        <translation>√d_k-labbet: spridningen av q·k mot √d_k, en softmax-rad oskalad och skalad, standardavvikelsen över d_k</translation>
    </message>
    <message>
        <source>the mask: the pattern with the causal mask and without it, the next token boxed</source>
        <translation>masken: pattern med den kausala masken och utan den, nästa token inramad</translation>
    </message>
    <message>
        <source>the KV cache: the cached k and v rows after one decode step, the new query row and its pattern</source>
        <translation>KV-cachen: de cachade raderna av k och v efter ett avkodningssteg, den nya query-raden och dess pattern</translation>
    </message>
    <message>
        <source>{value} (masked)</source>
        <translation>{value} (maskerad)</translation>
    </message>
    <message>
        <source>(the overview shows the largest value of each {rows} × {cols} cells; zoom in for each cell)</source>
        <translation>(översikten visar det största värdet av varje {rows} × {cols} celler; zooma in för varje cell)</translation>
    </message>
    <message>
        <source>row {i} ({row}) · column {j} ({col})</source>
        <translation>rad {i} ({row}) · kolumn {j} ({col})</translation>
    </message>
    <message>
        <source>dismiss</source>
        <translation>stäng</translation>
    </message>
    <message>
        <source>previous station (Ctrl+Left)</source>
        <translation>föregående station (Ctrl+Vänster)</translation>
    </message>
    <message>
        <source>next station (Ctrl+Right)</source>
        <translation>nästa station (Ctrl+Höger)</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Paus</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>Spela</translation>
    </message>
    <message>
        <source>play through the stations (F5); F5 or Esc pauses</source>
        <translation>spela upp stationerna i tur och ordning (F5); F5 eller Esc pausar</translation>
    </message>
    <message>
        <source>time per station while playing</source>
        <translation>tid per station under uppspelning</translation>
    </message>
    <message>
        <source>{seconds} s</source>
        <translation>{seconds} s</translation>
    </message>
    <message>
        <source>the instrument pages: the head lens, the √d_k lab, the mask, the KV cache and the modern-attention instruments</source>
        <translation>instrumentsidorna: headlinsen, √d_k-labbet, masken, KV-cachen och instrumenten för modern attention</translation>
    </message>
    <message>
        <source>before the first block</source>
        <translation>före det första blocket</translation>
    </message>
    <message>
        <source>The block as one picture</source>
        <translation>Blocket som en bild</translation>
    </message>
    <message>
        <source>click a picture to go to its station, a layer or a head to select it</source>
        <translation>klicka på en bild för att gå till dess station, på ett lager eller en head för att välja den</translation>
    </message>
    <message>
        <source>L{layer}</source>
        <translation>L{layer}</translation>
    </message>
    <message>
        <source>dense</source>
        <translation>tät</translation>
    </message>
    <message>
        <source>layers: head {head}&apos;s pattern in each</source>
        <translation>lagren: head {head}:s pattern i vart och ett</translation>
    </message>
    <message>
        <source>K/V {g}</source>
        <translation>K/V {g}</translation>
    </message>
    <message>
        <source>heads of layer {layer}</source>
        <translation>headarna i lager {layer}</translation>
    </message>
    <message>
        <source>layer {layer}, head {head}</source>
        <translation>lager {layer}, head {head}</translation>
    </message>
    <message>
        <source> · K/V head {g}, shared by query heads {first}–{last}</source>
        <translation> · K/V-head {g}, som delas av query-headarna {first}–{last}</translation>
    </message>
    <message>
        <source>  · hatched: masked (−∞)</source>
        <translation>  · streckat: maskerat (−∞)</translation>
    </message>
    <message>
        <source>Σ_j = {total}   max = {max}   entropy = {entropy} nats</source>
        <translation>Σ_j = {total}   max = {max}   entropi = {entropy} nats</translation>
    </message>
    <message>
        <source>next token after i = {i} (“{word}”)</source>
        <translation>nästa token efter i = {i} (”{word}”)</translation>
    </message>
    <message>
        <source>softmax(logits) after the last layer</source>
        <translation>softmax(logits) efter det sista lagret</translation>
    </message>
    <message>
        <source>probability</source>
        <translation>sannolikhet</translation>
    </message>
    <message>
        <source>Blues (0 = the page)</source>
        <translation>Blues (0 = sidan)</translation>
    </message>
    <message>
        <source>blue–white–red (0 = the page)</source>
        <translation>blå–vit–röd (0 = sidan)</translation>
    </message>
    <message>
        <source>blue–white–gold (colour-blind safe)</source>
        <translation>blå–vit–guld (säker vid färgblindhet)</translation>
    </message>
    <message>
        <source>position {i}: “{word}” — click: track this query · drag: move · right-click: edit</source>
        <translation>position {i}: ”{word}” — klicka: följ den här queryn · dra: flytta · högerklicka: redigera</translation>
    </message>
    <message>
        <source>tokens</source>
        <translation>tokens</translation>
    </message>
    <message>
        <source>add a word at the end</source>
        <translation>lägg till ett ord sist</translation>
    </message>
    <message>
        <source>add words at the end: type them after the text (Enter)</source>
        <translation>lägg till ord sist: skriv dem efter texten (Enter)</translation>
    </message>
    <message>
        <source>type words, Enter</source>
        <translation>skriv ord, Enter</translation>
    </message>
    <message>
        <source>type a sentence from the vocabulary and press Enter (Ctrl+L)</source>
        <translation>skriv en mening med ord ur vokabulären och tryck Enter (Ctrl+L)</translation>
    </message>
    <message>
        <source>every position of the text: drag to move the query</source>
        <translation>textens alla positioner: dra för att flytta query</translation>
    </message>
    <message>
        <source>jump to a position: the query moves there</source>
        <translation>hoppa till en position: query flyttas dit</translation>
    </message>
    <message>
        <source>go to </source>
        <translation>gå till </translation>
    </message>
    <message>
        <source>find a token</source>
        <translation>sök en token</translation>
    </message>
    <message>
        <source>find a token&apos;s text: Enter moves the query to its next occurrence</source>
        <translation>sök en tokens text: Enter flyttar query till nästa förekomst</translation>
    </message>
    <message>
        <source>position {i} of {T}: “{word}” — drag to move the query</source>
        <translation>position {i} av {T}: ”{word}” — dra för att flytta query</translation>
    </message>
    <message numerus="yes">
        <source>%n token(s); the model accepts up to n_ctx = {n_ctx}</source>
        <translation>
            <numerusform>%n token; modellen tar emot upp till n_ctx = {n_ctx}</numerusform>
            <numerusform>%n tokens; modellen tar emot upp till n_ctx = {n_ctx}</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>… +%n more</source>
        <translation>
            <numerusform>… +%n till</numerusform>
            <numerusform>… +%n till</numerusform>
        </translation>
    </message>
    <message>
        <source>the rest of the text is in the type box: click to type at its end</source>
        <translation>resten av texten finns i skrivrutan: klicka för att skriva i slutet</translation>
    </message>
    <message>
        <source>Replace with</source>
        <translation>Ersätt med</translation>
    </message>
    <message>
        <source>Insert after</source>
        <translation>Infoga efter</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>Ta bort</translation>
    </message>
    <message>
        <source>Train the toy model on repeating sequences (each token&apos;s successor is the one after its last occurrence). Watch layer 0 learn to look one token back and layer 1 learn to find where the current token appeared before.</source>
        <translation>Träna leksaksmodellen på upprepade sekvenser (varje tokens efterföljare är den som kom efter dess senaste förekomst). Se lager 0 lära sig att titta en token bakåt och lager 1 lära sig att hitta var den aktuella token förekom tidigare.</translation>
    </message>
    <message>
        <source>training starts from the random weights of this seed, and draws its data from it</source>
        <translation>träningen startar från de slumpade vikterna för det här fröet och drar sina data från det</translation>
    </message>
    <message>
        <source>redraw the views after this many steps</source>
        <translation>rita om vyerna efter så här många steg</translation>
    </message>
    <message>
        <source>seed</source>
        <translation>frö</translation>
    </message>
    <message>
        <source>steps</source>
        <translation>steg</translation>
    </message>
    <message>
        <source>update views every</source>
        <translation>uppdatera vyerna var</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>Fortsätt</translation>
    </message>
    <message>
        <source>each head&apos;s z patched in</source>
        <translation>varje huvuds z inpatchat</translation>
    </message>
    <message>
        <source>resid_pre at one position patched in</source>
        <translation>resid_pre vid en position inpatchat</translation>
    </message>
    <message>
        <source>position (clean→corrupted)</source>
        <translation>position (ren→förvanskad)</translation>
    </message>
    <message>
        <source>Clean “{clean}”, corrupted “{corrupted}”: running the two prompts…</source>
        <translation>Ren “{clean}”, förvanskad “{corrupted}”: kör de två prompterna…</translation>
    </message>
    <message>
        <source>the patching run</source>
        <translation>patchningskörningen</translation>
    </message>
    <message>
        <source>Metric m = logit(“{a}”) − logit(“{b}”) at the last position: {mc:.2f} on the clean prompt “{clean}”, {mx:.2f} on the corrupted “{corrupted}”. Each cell is the share of that difference a patch of the clean value into the corrupted pass restores (1 = all of it, 0 = nothing; a patch at layer l reuses the corrupted pass&apos;s layers before l). Hatched: not done yet. Click a head to open it.</source>
        <translation>Måttet m = logit(“{a}”) − logit(“{b}”) vid sista positionen: {mc:.2f} på den rena prompten “{clean}”, {mx:.2f} på den förvanskade “{corrupted}”. Varje cell är den andel av skillnaden som en patch av det rena värdet in i den förvanskade körningen återställer (1 = allt, 0 = inget; en patch i lager l återanvänder den förvanskade körningens lager före l). Streckat: inte klart än. Klicka på ett huvud för att öppna det.</translation>
    </message>
    <message>
        <source>The two prompts give the same metric: there is nothing to restore (choose other answers).</source>
        <translation>De två prompterna ger samma mått: det finns inget att återställa (välj andra svar).</translation>
    </message>
    <message>
        <source>All {n} cells in {s:.1f} s.</source>
        <translation>Alla {n} celler på {s:.1f} s.</translation>
    </message>
    <message>
        <source>The head that restores most: &lt;b&gt;{L}.{h}&lt;/b&gt; ({v:.2f}).</source>
        <translation>Huvudet som återställer mest: &lt;b&gt;{L}.{h}&lt;/b&gt; ({v:.2f}).</translation>
    </message>
    <message>
        <source>Stopped after {done} of {n} cells.</source>
        <translation>Stoppad efter {done} av {n} celler.</translation>
    </message>
    <message>
        <source>{done} of {n} cells, {s:.1f} s…</source>
        <translation>{done} av {n} celler, {s:.1f} s…</translation>
    </message>
    <message>
        <source>clean</source>
        <translation>ren</translation>
    </message>
    <message>
        <source>corrupted</source>
        <translation>förvanskad</translation>
    </message>
    <message>
        <source>Patch</source>
        <translation>Patcha</translation>
    </message>
    <message>
        <source>metric: logit of</source>
        <translation>mått: logit för</translation>
    </message>
    <message>
        <source>minus the logit of</source>
        <translation>minus logiten för</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>Stoppa</translation>
    </message>
    <message>
        <source>activation patching: how much of the clean metric each head&apos;s z and each position&apos;s resid_pre restores</source>
        <translation>aktiveringspatchning: hur mycket av det rena måttet varje huvuds z och varje positions resid_pre återställer</translation>
    </message>
    <message>
        <source>Save weights…</source>
        <translation>Spara vikter…</translation>
    </message>
    <message>
        <source>step</source>
        <translation>steg</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>förlust</translation>
    </message>
    <message>
        <source>press Train: the loss appears here</source>
        <translation>tryck på Träna: förlusten visas här</translation>
    </message>
    <message>
        <source>not training</source>
        <translation>tränar inte</translation>
    </message>
    <message>
        <source>step &lt;b&gt;{step}&lt;/b&gt; of {total} · loss &lt;b&gt;{loss}&lt;/b&gt; · {seconds} s</source>
        <translation>steg &lt;b&gt;{step}&lt;/b&gt; av {total} · förlust &lt;b&gt;{loss}&lt;/b&gt; · {seconds} s</translation>
    </message>
    <message>
        <source>the query&apos;s attn_scores row</source>
        <translation>queryns rad i attn_scores</translation>
    </message>
    <message>
        <source>its pattern row</source>
        <translation>dess rad i pattern</translation>
    </message>
    <message>
        <source>the query&apos;s pattern</source>
        <translation>queryns pattern</translation>
    </message>
    <message>
        <source>the terms pattern·v</source>
        <translation>termerna pattern·v</translation>
    </message>
    <message>
        <source>W_O (every head)</source>
        <translation>W_O (alla headar)</translation>
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
        <translation>medelvärde</translation>
    </message>
    <message>
        <source>cosine</source>
        <translation>cosinus</translation>
    </message>
    <message>
        <source>score</source>
        <translation>poäng</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>vikt</translation>
    </message>
    <message>
        <source>difference</source>
        <translation>skillnad</translation>
    </message>
    <message>
        <source>activation</source>
        <translation>aktivering</translation>
    </message>
    <message>
        <source>no {name}</source>
        <translation>ingen {name}</translation>
    </message>
    <message>
        <source>vocabulary</source>
        <translation>vokabulär</translation>
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
        <translation>expert_weights: de {k} högsta, omnormerade</translation>
    </message>
    <message>
        <source>expert_weights: the top {k}</source>
        <translation>expert_weights: de {k} högsta</translation>
    </message>
    <message>
        <source>expert</source>
        <translation>expert</translation>
    </message>
    <message>
        <source>expert_out[:, 0] (each token&apos;s first expert)</source>
        <translation>expert_out[:, 0] (varje tokens första expert)</translation>
    </message>
    <message>
        <source>z_concat (heads side by side)</source>
        <translation>z_concat (headarna sida vid sida)</translation>
    </message>
    <message>
        <source>head · d_head</source>
        <translation>head · d_head</translation>
    </message>
    <message>
        <source>attn_scores_scaled (scaling off)</source>
        <translation>attn_scores_scaled (skalning av)</translation>
    </message>
    <message>
        <source>attn_scores (no mask)</source>
        <translation>attn_scores (ingen mask)</translation>
    </message>
    <message>
        <source>attn_scores (masked: −∞, window {window})</source>
        <translation>attn_scores (maskerad: −∞, fönster {window})</translation>
    </message>
    <message>
        <source>attn_scores (masked: −∞)</source>
        <translation>attn_scores (maskerad: −∞)</translation>
    </message>
    <message>
        <source>W_O (stacked per head)</source>
        <translation>W_O (staplad per head)</translation>
    </message>
    <message>
        <source>W_U (untied unembedding)</source>
        <translation>W_U (separat unembedding)</translation>
    </message>
    <message>
        <source>position</source>
        <translation>position</translation>
    </message>
    <message>
        <source>attn_scores[{h}, {i}, :] — query “{word}”</source>
        <translation>attn_scores[{h}, {i}, :] — query ”{word}”</translation>
    </message>
    <message>
        <source>pattern[{h}, {i}, :] — its {k} strongest of {T} keys (the row sums to 1)</source>
        <translation>pattern[{h}, {i}, :] — dess {k} starkaste av {T} key (raden summerar till 1)</translation>
    </message>
    <message>
        <source>pattern[{h}, {i}, :] = softmax (row sums to 1)</source>
        <translation>pattern[{h}, {i}, :] = softmax (raden summerar till 1)</translation>
    </message>
    <message>
        <source>z[{i}, {h}] = Σ_j (column sums)</source>
        <translation>z[{i}, {h}] = Σ_j (kolumnsummor)</translation>
    </message>
    <message>
        <source>block input [T, d_model]</source>
        <translation>blockets indata [T, d_model]</translation>
    </message>
    <message>
        <source>LayerNorm 1 mean [T]</source>
        <translation>LayerNorm 1 medelvärde [T]</translation>
    </message>
    <message>
        <source>LayerNorm 1 variance [T]</source>
        <translation>LayerNorm 1 varians [T]</translation>
    </message>
    <message>
        <source>RMSNorm 1 scale √(mean(x²) + ε) [T]</source>
        <translation>RMSNorm 1 skala √(mean(x²) + ε) [T]</translation>
    </message>
    <message>
        <source>LayerNorm 1 output [T, d_model] (alias ln1)</source>
        <translation>LayerNorm 1 utdata [T, d_model] (alias ln1)</translation>
    </message>
    <message>
        <source>blocks.L.attn.W_K[g] [d_model, d_head] (g: the K/V head h reads)</source>
        <translation>blocks.L.attn.W_K[g] [d_model, d_head] (g: det K/V-head som h läser)</translation>
    </message>
    <message>
        <source>q after the QK-norm [T, d_head] (Qwen3, Gemma 3, OLMo 2)</source>
        <translation>q efter QK-normen [T, d_head] (Qwen3, Gemma 3, OLMo 2)</translation>
    </message>
    <message>
        <source>k after the QK-norm [T, d_head]</source>
        <translation>k efter QK-normen [T, d_head]</translation>
    </message>
    <message>
        <source>q after RoPE [T, d_head]</source>
        <translation>q efter RoPE [T, d_head]</translation>
    </message>
    <message>
        <source>k after RoPE [T, d_head]</source>
        <translation>k efter RoPE [T, d_head]</translation>
    </message>
    <message>
        <source>raw / √d_head [T, T]</source>
        <translation>rå / √d_head [T, T]</translation>
    </message>
    <message>
        <source>soft-capped: cap·tanh(scaled / cap), before the mask [T, T] (Gemma 2)</source>
        <translation>mjukt begränsad: cap·tanh(scaled / cap), före masken [T, T] (Gemma 2)</translation>
    </message>
    <message>
        <source>scaled, causal mask −∞ [T, T]</source>
        <translation>skalad, kausal mask −∞ [T, T]</translation>
    </message>
    <message>
        <source>softmax of attn_scores [T, T]</source>
        <translation>softmax av attn_scores [T, T]</translation>
    </message>
    <message>
        <source>heads side by side [T, n_heads·d_head]</source>
        <translation>headarna sida vid sida [T, n_heads·d_head]</translation>
    </message>
    <message>
        <source>LayerNorm 2 mean [T]</source>
        <translation>LayerNorm 2 medelvärde [T]</translation>
    </message>
    <message>
        <source>LayerNorm 2 variance [T]</source>
        <translation>LayerNorm 2 varians [T]</translation>
    </message>
    <message>
        <source>RMSNorm 2 scale [T]</source>
        <translation>RMSNorm 2 skala [T]</translation>
    </message>
    <message>
        <source>LayerNorm 2 output [T, d_model] (alias ln2)</source>
        <translation>LayerNorm 2 utdata [T, d_model] (alias ln2)</translation>
    </message>
    <message>
        <source>ln2_out · W_in + b_in [T, d_mlp] (SwiGLU: the gate, ln2_out · W_gate)</source>
        <translation>ln2_out · W_in + b_in [T, d_mlp] (SwiGLU: gate-grenen, ln2_out · W_gate)</translation>
    </message>
    <message>
        <source>SwiGLU&apos;s up branch ln2_out · W_in [T, d_mlp]</source>
        <translation>SwiGLU:s up-gren ln2_out · W_in [T, d_mlp]</translation>
    </message>
    <message>
        <source>GELU(mlp_pre) [T, d_mlp] (SwiGLU: SiLU(gate) ⊙ up)</source>
        <translation>GELU(mlp_pre) [T, d_mlp] (SwiGLU: SiLU(gate) ⊙ up)</translation>
    </message>
    <message>
        <source>blocks.L.moe.W_router [d_model, n_experts] (a mixture of experts)</source>
        <translation>blocks.L.moe.W_router [d_model, n_experts] (en blandning av experter)</translation>
    </message>
    <message>
        <source>a mixture of experts&apos; router, ln2_out · W_router [T, n_experts]</source>
        <translation>routern i en blandning av experter, ln2_out · W_router [T, n_experts]</translation>
    </message>
    <message>
        <source>softmax of the router [T, n_experts]</source>
        <translation>routerns softmax [T, n_experts]</translation>
    </message>
    <message>
        <source>the router&apos;s weights on each token&apos;s top-k experts [T, n_experts]</source>
        <translation>routerns vikter på varje tokens k bästa experter [T, n_experts]</translation>
    </message>
    <message>
        <source>each token&apos;s first expert&apos;s output [T, d_model]</source>
        <translation>utdata från varje tokens första expert [T, d_model]</translation>
    </message>
    <message>
        <source>MLP output [T, d_model]</source>
        <translation>MLP-utdata [T, d_model]</translation>
    </message>
    <message>
        <source>block output [T, d_model]</source>
        <translation>blockets utdata [T, d_model]</translation>
    </message>
    <message>
        <source>final LayerNorm [T, d_model]</source>
        <translation>sista LayerNorm [T, d_model]</translation>
    </message>
    <message>
        <source>unembed.W_U [d_model, d_vocab] (untied models)</source>
        <translation>unembed.W_U [d_model, d_vocab] (modeller med separat unembedding)</translation>
    </message>
    <message>
        <source>resid_pre (layer 0)</source>
        <translation>resid_pre (lager 0)</translation>
    </message>
    <message>
        <source>resid_pre = embed = W_E[tokens];&amp;nbsp; no W_pos: with RoPE the positions enter as rotations of q and k (Q·K·V)</source>
        <translation>resid_pre = embed = W_E[tokens];&amp;nbsp; ingen W_pos: med RoPE kommer positionerna in som rotationer av q och k (Q·K·V)</translation>
    </message>
    <message>
        <source>[T, d_model] = [{T}, {d_model}], ε = 1e-5, biased variance</source>
        <translation>[T, d_model] = [{T}, {d_model}], ε = 1e-5, varians delad med d_model (biased)</translation>
    </message>
    <message>
        <source>ln1_out = resid_pre / ln1_scale · w,&amp;nbsp; ln1_scale = √(mean(resid_pre²) + ε)&amp;nbsp; — RMSNorm: no mean subtracted, no bias</source>
        <translation>ln1_out = resid_pre / ln1_scale · w,&amp;nbsp; ln1_scale = √(mean(resid_pre²) + ε)&amp;nbsp; — RMSNorm: inget medelvärde dras av, ingen bias</translation>
    </message>
    <message>
        <source>[T, d_model] = [{T}, {d_model}], ε = {norm_eps:.3g}; ln1_scale: [T], one per token</source>
        <translation>[T, d_model] = [{T}, {d_model}], ε = {norm_eps:.3g}; ln1_scale: [T], en per token</translation>
    </message>
    <message>
        <source>q = ln1_out · W_Q[h] + b_Q[h]   (likewise k, v)</source>
        <translation>q = ln1_out · W_Q[h] + b_Q[h]   (likadant för k, v)</translation>
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
        <translation>q = ln1_out · W_Q[h] (likadant för k, v);&amp;nbsp; rot_q, rot_k = q, k med varje par av dimensioner roterat med en vinkel ∝ positionen (RoPE)</translation>
    </message>
    <message>
        <source>q = ln1_out · W_Q[h] (likewise k, v);&amp;nbsp; q_normed, k_normed = RMSNorm of q, k (QK-norm);&amp;nbsp; rot_q, rot_k = those with each pair of dimensions rotated (RoPE)</source>
        <translation>q = ln1_out · W_Q[h] (likaså k, v);&amp;nbsp; q_normed, k_normed = RMSNorm av q, k (QK-norm);&amp;nbsp; rot_q, rot_k = dessa med varje par av dimensioner roterat (RoPE)</translation>
    </message>
    <message>
        <source>attn_scores_raw = q·kᵀ → ÷ √d_head → causal mask (−∞) → softmax = pattern</source>
        <translation>attn_scores_raw = q·kᵀ → ÷ √d_head → kausal mask (−∞) → softmax = pattern</translation>
    </message>
    <message>
        <source>[T, T] = [{T}, {T}] = {TT} scores per head</source>
        <translation>[T, T] = [{T}, {T}] = {TT} poäng per head</translation>
    </message>
    <message>
        <source>attn_scores_raw = rot_q·rot_kᵀ → ÷ √d_head → causal mask (−∞) → softmax = pattern</source>
        <translation>attn_scores_raw = rot_q·rot_kᵀ → ÷ √d_head → kausal mask (−∞) → softmax = pattern</translation>
    </message>
    <message>
        <source>attn_scores_raw → × scale → soft-cap: cap·tanh(s / cap) → causal mask (−∞) → softmax = pattern</source>
        <translation>attn_scores_raw → × skala → mjuk gräns: cap·tanh(s / cap) → kausal mask (−∞) → softmax = pattern</translation>
    </message>
    <message>
        <source>one row of [T, T], T = {T}</source>
        <translation>en rad av [T, T], T = {T}</translation>
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
        <translation>mlp_pre: [T, d_mlp] = [{T}, {d_mlp}] · logits via {unembed}</translation>
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
        <translation>mlp_pre (gate), mlp_pre_linear (up), mlp_post: [T, d_mlp] = [{T}, {d_mlp}] · W_out: [d_mlp, d_model] = [{d_mlp}, {d_model}] · logits via {unembed}</translation>
    </message>
    <message>
        <source>router_probs = softmax(ln2_out · W_router);&amp;nbsp; each token through its top-k experts e: (SiLU(x·W_gate[e]) ⊙ x·W_in[e])·W_out[e];&amp;nbsp; mlp_out = Σ_e expert_weights[e] · expert_out[e]</source>
        <translation>router_probs = softmax(ln2_out · W_router);&amp;nbsp; varje token genom sina k bästa experter e: (SiLU(x·W_gate[e]) ⊙ x·W_in[e])·W_out[e];&amp;nbsp; mlp_out = Σ_e expert_weights[e] · expert_out[e]</translation>
    </message>
    <message>
        <source>router_probs, expert_weights: [T, n_experts] = [{T}, {n_experts}] · each of {n_experts} experts: W_gate, W_in [d_model, d_mlp] = [{d_model}, {d_mlp}] · logits via {unembed}</source>
        <translation>router_probs, expert_weights: [T, n_experts] = [{T}, {n_experts}] · var och en av {n_experts} experter: W_gate, W_in [d_model, d_mlp] = [{d_model}, {d_mlp}] · logits via {unembed}</translation>
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
        <translation>{axis} {j} vid ”{row}”</translation>
    </message>
    <message>
        <source>column</source>
        <translation>kolumn</translation>
    </message>
    <message numerus="yes">
        <source>▲ {where} = {value} · %n clipped above {end}</source>
        <translation>
            <numerusform>▲ {where} = {value} · %n klippt över {end}</numerusform>
            <numerusform>▲ {where} = {value} · %n klippta över {end}</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>▲ {where} = {value} · %n clipped beyond ±{end}</source>
        <translation>
            <numerusform>▲ {where} = {value} · %n klippt bortom ±{end}</numerusform>
            <numerusform>▲ {where} = {value} · %n klippta bortom ±{end}</numerusform>
        </translation>
    </message>
    <message>
        <source>full range 0…{top}: outliers set the scale (click: clip at {end})</source>
        <translation>hela skalan 0…{top}: extremvärden sätter skalan (klick: klipp vid {end})</translation>
    </message>
    <message>
        <source>full range ±{top}: outliers set the scale (click: clip at ±{end})</source>
        <translation>hela skalan ±{top}: extremvärden sätter skalan (klick: klipp vid ±{end})</translation>
    </message>
    <message>
        <source>query i = {i} sees every earlier key (the window is not full yet)</source>
        <translation>query i = {i} ser varje tidigare key (fönstret är inte fullt än)</translation>
    </message>
    <message>
        <source>for query i = {i}, key 0 is outside the window</source>
        <translation>för query i = {i} ligger key 0 utanför fönstret</translation>
    </message>
    <message>
        <source>for query i = {i}, keys 0–{last} are outside the window</source>
        <translation>för query i = {i} ligger keys 0–{last} utanför fönstret</translation>
    </message>
    <message>
        <source>window W = {W}: query i sees keys i−{back} … i; {where} (hatched)</source>
        <translation>fönster W = {W}: query i ser keys i−{back} … i; {where} (streckat)</translation>
    </message>
    <message>
        <source>local (window {W})</source>
        <translation>lokalt (fönster {W})</translation>
    </message>
    <message>
        <source>global</source>
        <translation>globalt</translation>
    </message>
    <message>
        <source>RoPE base {base}</source>
        <translation>RoPE-bas {base}</translation>
    </message>
    <message>
        <source>W_Eᵀ (tied)</source>
        <translation>W_Eᵀ (delad)</translation>
    </message>
    <message>
        <source>unembed.W_U (untied)</source>
        <translation>unembed.W_U (separat)</translation>
    </message>
    <message>
        <source>scores</source>
        <translation>poäng</translation>
    </message>
    <message>
        <source>heads · W_O</source>
        <translation>headar · W_O</translation>
    </message>
    <message>
        <source>{system} runs the cpu backend (the cuda backend is for Linux with an NVIDIA GPU)</source>
        <translation>{system} kör backend cpu (backend cuda är för Linux med en NVIDIA-GPU)</translation>
    </message>
    <message>
        <source>CUDA not used: {why}</source>
        <translation>CUDA används inte: {why}</translation>
    </message>
    <message>
        <source>must be a whole number (got {type})</source>
        <translation>måste vara ett heltal (fick {type})</translation>
    </message>
    <message>
        <source>must be at least 1</source>
        <translation>måste vara minst 1</translation>
    </message>
    <message>
        <source>is above the limit of {limit}</source>
        <translation>är över gränsen {limit}</translation>
    </message>
    <message>
        <source>must be one of {choices}</source>
        <translation>måste vara en av {choices}</translation>
    </message>
    <message>
        <source>defaults to d_model // n_heads = {d_model} // {n_heads} = 0; give d_head explicitly or use fewer heads</source>
        <translation>blir som standard d_model // n_heads = {d_model} // {n_heads} = 0; ange d_head uttryckligen eller använd färre headar</translation>
    </message>
    <message>
        <source>must divide n_heads={n_heads} (each K/V head serves n_heads / n_kv_heads query heads)</source>
        <translation>måste gå jämnt upp i n_heads={n_heads} (varje K/V-head betjänar n_heads / n_kv_heads query-headar)</translation>
    </message>
    <message>
        <source>must be even with RoPE, which rotates pairs of dimensions (or rotate fewer: an even rotary_dim &lt; d_head)</source>
        <translation>måste vara jämnt med RoPE, som roterar par av dimensioner (eller rotera färre: ett jämnt rotary_dim &lt; d_head)</translation>
    </message>
    <message>
        <source>must be even: RoPE rotates pairs of dimensions</source>
        <translation>måste vara jämnt: RoPE roterar par av dimensioner</translation>
    </message>
    <message>
        <source>must be at most d_head={d_head}</source>
        <translation>får vara högst d_head={d_head}</translation>
    </message>
    <message>
        <source>must be 1 to n_experts={n_experts}: each token&apos;s router picks that many experts</source>
        <translation>måste vara 1 till n_experts={n_experts}: routern väljer så många experter för varje token</translation>
    </message>
    <message>
        <source>is outside the vocabulary 0..{last} (d_vocab={d_vocab})</source>
        <translation>ligger utanför vokabulären 0..{last} (d_vocab={d_vocab})</translation>
    </message>
    <message>
        <source>n_ctx={n_ctx} is too small for T={T}; use at most {n_ctx} tokens or a larger n_ctx</source>
        <translation>n_ctx={n_ctx} är för litet för T={T}; använd högst {n_ctx} tokens eller ett större n_ctx</translation>
    </message>
    <message>
        <source>2 blocks, 2 heads, width 8, vocabulary 16: small enough to read every number.</source>
        <translation>2 block, 2 headar, bredd 8, vokabulär 16: litet nog för att läsa varje tal.</translation>
    </message>
    <message>
        <source>The course model: d_model 768, 12 heads of 64, T up to 1024. Layers (12) and vocabulary (50,257) assumed equal to GPT-2 small.</source>
        <translation>Kursens modell: d_model 768, 12 headar à 64, T upp till 1024. Antalet lager (12) och vokabulären (50 257) antas vara som i GPT-2 small.</translation>
    </message>
    <message>
        <source>GPT-2 small&apos;s dimensions: 12 blocks, 12 heads of 64, width 768, context 1024.</source>
        <translation>GPT-2 smalls dimensioner: 12 block, 12 headar à 64, bredd 768, kontext 1024.</translation>
    </message>
    <message>
        <source>GPT-3 175B&apos;s dimensions: 96 blocks of 96 heads of 128, width 12,288, context 2,048. Dimensions only, random weights, one block at a time.</source>
        <translation>GPT-3 175B:s dimensioner: 96 block med 96 headar à 128, bredd 12 288, kontext 2 048. Bara dimensionerna, slumpade vikter, ett block i taget.</translation>
    </message>
    <message>
        <source>GPT-3 175B with the attention its paper describes: &quot;alternating dense and locally banded sparse attention patterns in the layers&quot;. The paper gives no band width; 256 keys is assumed, the local window of GPT-Neo, EleutherAI&apos;s open replication of GPT-3&apos;s layout (its layers alternate global and local attention with window 256). Even layers dense, odd layers banded. Dimensions only, one block at a time (n_layers=1 is a dense layer; n_layers=2 shows both kinds).</source>
        <translation>GPT-3 175B med den attention som artikeln beskriver: ”alternating dense and locally banded sparse attention patterns in the layers”. Artikeln anger ingen bandbredd; 256 keys antas, det lokala fönstret i GPT-Neo, EleutherAI:s öppna återskapande av GPT-3:s upplägg (dess lager växlar mellan global och lokal attention med fönster 256). Jämna lager täta, udda lager bandade. Bara dimensionerna, ett block i taget (n_layers=1 är ett tätt lager; n_layers=2 visar båda sorterna).</translation>
    </message>
    <message>
        <source>SmolLM2-135M&apos;s dimensions: 30 blocks, 9 query heads sharing 3 K/V heads (GQA) of 64, width 576, SwiGLU MLP of 1,536, RMSNorm, RoPE (theta 100,000), tied embeddings, vocabulary 49,152, context 8,192 (its config.json and GGUF say 8,192). Random weights; the real ones are &apos;SmolLM2-135M (real weights)&apos;.</source>
        <translation>SmolLM2-135M:s dimensioner: 30 block, 9 query-headar som delar 3 K/V-headar (GQA) à 64, bredd 576, SwiGLU-MLP på 1 536, RMSNorm, RoPE (theta 100 000), delade inbäddningar, vokabulär 49 152, kontext 8 192 (dess config.json och GGUF anger 8 192). Slumpade vikter; de riktiga är ”SmolLM2-135M (riktiga vikter)”.</translation>
    </message>
    <message>
        <source>Gemma 3 270M&apos;s dimensions: 18 blocks, 4 query heads sharing 1 K/V head (MQA) of 256 (q is 1,024 wide, d_model 640), QK-norm, RMSNorm before and after attention and the MLP, GeGLU MLP of 2,048, embeddings × √640, scores × 1/√256; 5 local layers (window 512, RoPE base 10,000) to 1 global (base 1,000,000); vocabulary 262,144. Random weights; the real ones are &apos;Gemma 3 270M (real weights)&apos;.</source>
        <translation>Gemma 3 270M:s dimensioner: 18 block, 4 query-headar som delar 1 K/V-head (MQA) à 256 (q är 1 024 brett, d_model 640), QK-norm, RMSNorm före och efter attention och MLP:n, GeGLU-MLP på 2 048, inbäddningar × √640, poäng × 1/√256; 5 lokala lager (fönster 512, RoPE-bas 10 000) per 1 globalt (bas 1 000 000); vokabulär 262 144. Slumpade vikter; de riktiga är ”Gemma 3 270M (riktiga vikter)”.</translation>
    </message>
    <message>
        <source>Llama-3-8B&apos;s dimensions: 32 blocks, 32 query heads sharing 8 K/V heads of 128, width 4,096, SwiGLU MLP of 14,336, RMSNorm, RoPE (theta 500,000), untied unembedding, vocabulary 128,256, context 8,192. Dimensions only, random weights, one block at a time.</source>
        <translation>Llama-3-8B:s dimensioner: 32 block, 32 query-headar som delar 8 K/V-headar à 128, bredd 4 096, SwiGLU-MLP på 14 336, RMSNorm, RoPE (theta 500 000), separat unembedding, vokabulär 128 256, kontext 8 192. Bara dimensionerna, slumpade vikter, ett block i taget.</translation>
    </message>
    <message>
        <source>Mistral-7B (v0.1)&apos;s dimensions: 32 blocks, 32 query heads sharing 8 K/V heads of 128, width 4,096, SwiGLU MLP of 14,336, RoPE (theta 10,000), vocabulary 32,000, context 32,768 with a sliding window of 4,096 keys in every layer. Dimensions only, one block at a time.</source>
        <translation>Mistral-7B (v0.1):s dimensioner: 32 block, 32 query-headar som delar 8 K/V-headar à 128, bredd 4 096, SwiGLU-MLP på 14 336, RoPE (theta 10 000), vokabulär 32 000, kontext 32 768 med ett glidande fönster på 4 096 keys i varje lager. Bara dimensionerna, ett block i taget.</translation>
    </message>
    <message>
        <source>K/V cache ({kind}): {token} per token, {full} at the full context of {n_ctx} (every head keeps its own K and V, as in multi-head attention)</source>
        <translation>K/V-cache ({kind}): {token} per token, {full} vid hela kontexten {n_ctx} (varje huvud har sina egna K och V, som i multi-head attention)</translation>
    </message>
    <message>
        <source>K/V cache ({kind}): {token} per token, {full} at the full context of {n_ctx}; multi-head attention would need {mha_token} and {mha_full} ({ratio}× and {ratio_full}× more)</source>
        <translation>K/V-cache ({kind}): {token} per token, {full} vid full kontext på {n_ctx}; multi-head attention skulle behöva {mha_token} och {mha_full} ({ratio}× respektive {ratio_full}× mer)</translation>
    </message>
    <message>
        <source>a KV cache needs the causal mask: without it, earlier positions would see the new token and every row would change</source>
        <translation>en KV-cache kräver den kausala masken: utan den skulle tidigare positioner se den nya token och varje rad ändras</translation>
    </message>
    <message>
        <source>the prompt needs at least one token</source>
        <translation>prompten behöver minst en token</translation>
    </message>
    <message>
        <source>n_ctx={n_ctx} is reached: no room to generate another token</source>
        <translation>n_ctx={n_ctx} är nått: ingen plats att generera en token till</translation>
    </message>
    <message>
        <source>weights dequantized from {type}</source>
        <translation>vikter avkvantiserade från {type}</translation>
    </message>
    <message>
        <source>weights dequantized from {types} and {last}</source>
        <translation>vikter avkvantiserade från {types} och {last}</translation>
    </message>
    <message>
        <source>weights stored as F32</source>
        <translation>vikter lagrade som F32</translation>
    </message>
    <message>
        <source>weights converted from {types} to float32</source>
        <translation>vikter konverterade från {types} till float32</translation>
    </message>
    <message>
        <source>the text is {T} tokens but this model reads at most n_ctx={n_ctx} (config.json); shorten the text</source>
        <translation>texten är {T} tokens men den här modellen läser högst n_ctx={n_ctx} (config.json); korta texten</translation>
    </message>
    <message>
        <source>set by QKV_LAB_MEMORY_BUDGET_GIB</source>
        <translation>satt av QKV_LAB_MEMORY_BUDGET_GIB</translation>
    </message>
    <message>
        <source>{percent}% of available RAM</source>
        <translation>{percent} % av tillgängligt RAM</translation>
    </message>
    <message>
        <source>n_layers={n} fits</source>
        <translation>n_layers={n} får plats</translation>
    </message>
    <message>
        <source>T={T} tokens fit</source>
        <translation>T={T} tokens får plats</translation>
    </message>
    <message>
        <source>even 1 layer and 1 token needs {gib} GiB: use smaller dimensions or a machine with more memory</source>
        <translation>även 1 lager och 1 token behöver {gib} GiB: använd mindre dimensioner eller en dator med mer minne</translation>
    </message>
    <message>
        <source>even 1 layer needs {gib} GiB: use smaller dimensions or a machine with more memory</source>
        <translation>även 1 lager behöver {gib} GiB: använd mindre dimensioner eller en dator med mer minne</translation>
    </message>
    <message>
        <source>given</source>
        <translation>angiven</translation>
    </message>
    <message>
        <source>needs an estimated {need} GiB ({sizes}), over the memory budget of {budget} GiB ({source}); {hints}</source>
        <translation>behöver uppskattningsvis {need} GiB ({sizes}), över minnesbudgeten på {budget} GiB ({source}); {hints}</translation>
    </message>
    <message>
        <source>{name}: this model has no norm before attention and the MLP (OLMo 2): they read the residual stream as it is, and their outputs are normed instead (attn_out_normed, mlp_out_normed)</source>
        <translation>{name}: den här modellen har ingen norm före attention och MLP:n (OLMo 2): de läser residualströmmen som den är, och deras utdata normeras i stället (attn_out_normed, mlp_out_normed)</translation>
    </message>
    <message>
        <source>{name}: this model adds attn_out and mlp_out to the residual stream as they are; only Gemma 2/3 and OLMo 2 norm them first</source>
        <translation>{name}: den här modellen lägger till attn_out och mlp_out i residualströmmen som de är; bara Gemma 2/3 och OLMo 2 normerar dem först</translation>
    </message>
    <message>
        <source>{name}: this model uses RMSNorm, which subtracts no mean and keeps no variance; see {scale}, sqrt(mean(x²) + eps)</source>
        <translation>{name}: den här modellen använder RMSNorm, som inte drar av något medelvärde och inte sparar någon varians; se {scale}, sqrt(mean(x²) + eps)</translation>
    </message>
    <message>
        <source>{name}: this model uses LayerNorm; see {mean} and {var}</source>
        <translation>{name}: den här modellen använder LayerNorm; se {mean} och {var}</translation>
    </message>
    <message>
        <source>{name}: this model has no QK-norm (q and k go to the scores as they are)</source>
        <translation>{name}: den här modellen har ingen QK-norm (q och k går till poängen som de är)</translation>
    </message>
    <message>
        <source>attn_scores_capped: this model does not soft-cap its scores (only Gemma 2 does: cap·tanh(s / cap) before the mask); the mask takes attn_scores_scaled</source>
        <translation>attn_scores_capped: den här modellen sätter ingen mjuk gräns för sina poäng (bara Gemma 2 gör det: cap·tanh(s / cap) före masken); masken tar attn_scores_scaled</translation>
    </message>
    <message>
        <source>{name}: this model has learned positions, no RoPE</source>
        <translation>{name}: den här modellen har inlärda positioner, ingen RoPE</translation>
    </message>
    <message>
        <source>pos_embed: this model has RoPE positions (q and k are rotated), no learned position embedding</source>
        <translation>pos_embed: den här modellen har RoPE-positioner (q och k roteras), ingen inlärd positionsinbäddning</translation>
    </message>
    <message>
        <source>{name}: this model&apos;s MLP is dense (every token goes through the one MLP); only a mixture of experts has a router</source>
        <translation>{name}: den här modellens MLP är tät (varje token går genom samma MLP); bara en blandning av experter har en router</translation>
    </message>
    <message>
        <source>{name}: this model&apos;s MLP is a mixture of {n} experts, each token through {k} of them; see router_probs, expert_weights and expert_out</source>
        <translation>{name}: den här modellens MLP är en blandning av {n} experter, varje token genom {k} av dem; se router_probs, expert_weights och expert_out</translation>
    </message>
    <message>
        <source>mlp_pre_linear: this model&apos;s MLP is GELU (W_in, GELU, W_out); only SwiGLU and GeGLU have a second, linear branch x·W_in</source>
        <translation>mlp_pre_linear: den här modellens MLP är GELU (W_in, GELU, W_out); bara SwiGLU och GeGLU har en andra, linjär gren x·W_in</translation>
    </message>
    <message>
        <source>{name}: this model has no norm before attention and the MLP (OLMo 2); see ln1_post.w and ln2_post.w</source>
        <translation>{name}: den här modellen har ingen norm före attention och MLP:n (OLMo 2); se ln1_post.w och ln2_post.w</translation>
    </message>
    <message>
        <source>{name}: this model has no norm after attention and the MLP (only Gemma 2/3 and OLMo 2 have one)</source>
        <translation>{name}: den här modellen har ingen norm efter attention och MLP:n (bara Gemma 2/3 och OLMo 2 har en)</translation>
    </message>
    <message>
        <source>{name}: only a gated MLP (SwiGLU, GeGLU) has a gate; this one is GELU</source>
        <translation>{name}: bara en grindad MLP (SwiGLU, GeGLU) har en gate; den här är GELU</translation>
    </message>
    <message>
        <source>{name}: RMSNorm has a scale w and no bias</source>
        <translation>{name}: RMSNorm har en skala w och ingen bias</translation>
    </message>
    <message>
        <source>{name}: this model has RoPE positions, no learned position embedding</source>
        <translation>{name}: den här modellen har RoPE-positioner, ingen inlärd positionsinbäddning</translation>
    </message>
    <message>
        <source>{name}: this model&apos;s attention has no biases (attn_bias=False)</source>
        <translation>{name}: den här modellens attention har inga bias (attn_bias=False)</translation>
    </message>
    <message>
        <source>{name}: this model&apos;s MLP has no biases (mlp_bias=False)</source>
        <translation>{name}: den här modellens MLP har inga bias (mlp_bias=False)</translation>
    </message>
    <message>
        <source>{name}: this model has no QK-norm</source>
        <translation>{name}: den här modellen har ingen QK-norm</translation>
    </message>
    <message>
        <source>{name}: this model&apos;s MLP is dense; only a mixture of experts has a router and expert weights</source>
        <translation>{name}: den här modellens MLP är tät; bara en blandning av experter har en router och expertvikter</translation>
    </message>
    <message>
        <source>{name}: this model&apos;s MLP is a mixture of experts; its weights are moe.W_router, moe.W_gate, moe.W_in and moe.W_out</source>
        <translation>{name}: den här modellens MLP är en blandning av experter; dess vikter är moe.W_router, moe.W_gate, moe.W_in och moe.W_out</translation>
    </message>
    <message>
        <source>{name}: the unembedding is tied to W_E (logits = ln_final_out @ W_Eᵀ)</source>
        <translation>{name}: unembedding är delad med W_E (logits = ln_final_out @ W_Eᵀ)</translation>
    </message>
    <message>
        <source>{title}: {n} chunk packages ({mb} MB), joined into the lab&apos;s cache when first opened; {about}</source>
        <translation>{title}: {n} delpaket ({mb} MB), som sätts ihop i labbets cache första gången modellen öppnas; {about}</translation>
    </message>
    <message>
        <source>{title}: {file} ({mb} MB), {about}</source>
        <translation>{title}: {file} ({mb} MB), {about}</translation>
    </message>
    <message>
        <source>{title} is not installed; install it with: {command}</source>
        <translation>{title} är inte installerad; installera den med: {command}</translation>
    </message>
    <message>
        <source>joining the model&apos;s chunks</source>
        <translation>sätter ihop modellens delar</translation>
    </message>
    <message>
        <source>SmolLM2-135M (real weights)</source>
        <translation>SmolLM2-135M (riktiga vikter)</translation>
    </message>
    <message>
        <source>HuggingFaceTB&apos;s SmolLM2-135M-Instruct, quantized to Q4_1 (Apache-2.0)</source>
        <translation>HuggingFaceTB:s SmolLM2-135M-Instruct, kvantiserad till Q4_1 (Apache-2.0)</translation>
    </message>
    <message>
        <source>Gemma 3 270M (real weights)</source>
        <translation>Gemma 3 270M (riktiga vikter)</translation>
    </message>
    <message>
        <source>Google&apos;s Gemma 3 270M, quantized to Q4_K_M; provided under and subject to the Gemma Terms of Use (ai.google.dev/gemma/terms), not redistributed by the lab</source>
        <translation>Googles Gemma 3 270M, kvantiserad till Q4_K_M; tillhandahålls under och enligt Gemmas användarvillkor (Gemma Terms of Use, ai.google.dev/gemma/terms), distribueras inte vidare av labbet</translation>
    </message>
    <message>
        <source>the same inputs with one change: A as the lab shows it, B a fresh forward pass, and B − A</source>
        <translation>samma indata med en ändring: A som labbet visar det, B en ny framåtkörning, och B − A</translation>
    </message>
    <message>
        <source>{P} pairs (d, d + {half}): dashed before, solid after; (i − j)·θ_d</source>
        <translation>{P} par (d, d + {half}): streckat före, heldraget efter; (i − j)·θ_d</translation>
    </message>
    <message>
        <source>cos(W_pos[i], W_pos[j]): what W_pos learned</source>
        <translation>cos(W_pos[i], W_pos[j]): vad W_pos har lärt sig</translation>
    </message>
    <message>
        <source>position i</source>
        <translation>position i</translation>
    </message>
    <message>
        <source>position j</source>
        <translation>position j</translation>
    </message>
    <message>
        <source>attn_scores_raw[{h}]: click a key j</source>
        <translation>attn_scores_raw[{h}]: klicka på en key j</translation>
    </message>
    <message>
        <source> (+ {rest:.3g} unrotated)</source>
        <translation> (+ {rest:.3g} oroterat)</translation>
    </message>
    <message>
        <source>after RoPE</source>
        <translation>efter RoPE</translation>
    </message>
    <message>
        <source>without RoPE</source>
        <translation>utan RoPE</translation>
    </message>
    <message>
        <source>pair d</source>
        <translation>par d</translation>
    </message>
    <message>
        <source>θ_d: radians per position</source>
        <translation>θ_d: radianer per position</translation>
    </message>
    <message>
        <source>pair d (fast … slow)</source>
        <translation>par d (snabb … långsam)</translation>
    </message>
    <message>
        <source>radians</source>
        <translation>radianer</translation>
    </message>
    <message>
        <source>score when positions move by Δ</source>
        <translation>poäng när positionerna flyttas Δ</translation>
    </message>
    <message>
        <source>only j − Δ</source>
        <translation>bara j − Δ</translation>
    </message>
    <message>
        <source>Δ (positions)</source>
        <translation>Δ (positioner)</translation>
    </message>
    <message>
        <source>Moving both positions by Δ changes the score by at most {drift:.0e}; moving only the key changes it by up to {swing:.3g}. Query i = {i} “{qi}”, key j = {j} “{kj}”, head {h} (reads K/V head {g}), layer {L}: θ = {theta:g}, rotary_dim = {r} of d_head = {dh}. The pairs&apos; shares add up to &lt;b&gt;{score:.5g}&lt;/b&gt; = attn_scores_raw[{h}, {i}, {j}] (the model: {model:.5g}); ÷ √d_head → {scaled:.4g}</source>
        <translation>Flyttas båda positionerna Δ ändras poängen högst {drift:.0e}; flyttas bara key ändras den upp till {swing:.3g}. Query i = {i} ”{qi}”, key j = {j} ”{kj}”, head {h} (läser K/V-head {g}), lager {L}: θ = {theta:g}, rotary_dim = {r} av d_head = {dh}. Parens andelar summeras till &lt;b&gt;{score:.5g}&lt;/b&gt; = attn_scores_raw[{h}, {i}, {j}] (modellen: {model:.5g}); ÷ √d_head → {scaled:.4g}</translation>
    </message>
    <message>
        <source> — the mask forbids this key (j &amp;gt; i)</source>
        <translation> — masken förbjuder den här key (j &amp;gt; i)</translation>
    </message>
    <message>
        <source>. Every arrow keeps its length.</source>
        <translation>. Varje pil behåller sin längd.</translation>
    </message>
    <message>
        <source>{P} rotated pairs per head · θ_d from 1 to {low:.1e} rad per position</source>
        <translation>{P} roterade par per head · θ_d från 1 till {low:.1e} rad per position</translation>
    </message>
    <message>
        <source>query heads</source>
        <translation>query-headar</translation>
    </message>
    <message>
        <source>K/V heads</source>
        <translation>K/V-headar</translation>
    </message>
    <message>
        <source>{H} query heads read {KV} K/V heads ({n} per group)</source>
        <translation>{H} query-headar läser {KV} K/V-headar ({n} per grupp)</translation>
    </message>
    <message>
        <source>(this model)</source>
        <translation>(den här modellen)</translation>
    </message>
    <message>
        <source>(what if)</source>
        <translation>(tänk om)</translation>
    </message>
    <message>
        <source>K/V cache at n_ctx = {n:,}, fp16: {ratio:.3g}× less than {H} heads</source>
        <translation>K/V-cache vid n_ctx = {n:,}, fp16: {ratio:.3g}× mindre än {H} headar</translation>
    </message>
    <message>
        <source>head {x}: q_{x} · k_{g}ᵀ</source>
        <translation>head {x}: q_{x} · k_{g}ᵀ</translation>
    </message>
    <message>
        <source>shared keys {k}[:, {g}]</source>
        <translation>delade keys {k}[:, {g}]</translation>
    </message>
    <message>
        <source>Head {h} is in group {g} with heads {heads}: one k and one v for them all, {n} different queries, so {n} different score maps over the same keys. </source>
        <translation>Head {h} ingår i grupp {g} med headarna {heads}: ett k och ett v för dem alla, {n} olika queries, alltså {n} olika poängkartor över samma keys. </translation>
    </message>
    <message>
        <source>Head {h} reads K/V head {g} alone. </source>
        <translation>Head {h} läser K/V-head {g} ensam. </translation>
    </message>
    <message>
        <source>This model&apos;s cache: {now} for these {T} tokens, {full} at n_ctx = {n_ctx:,}. With n_kv_heads = {n}: {what_if}. &lt;b&gt;MQA&lt;/b&gt; (1 K/V head) keeps every head&apos;s own queries and pattern and makes the cache {H}× smaller; it loses the heads&apos; own keys and values — they can differ only by what they ask. Try n_kv_heads in A/B: the K/V heads are mean-pooled (not retrained).</source>
        <translation>Den här modellens cache: {now} för dessa {T} tokens, {full} vid n_ctx = {n_ctx:,}. Med n_kv_heads = {n}: {what_if}. &lt;b&gt;MQA&lt;/b&gt; (1 K/V-head) behåller varje heads egna queries och mönster och gör cachen {H}× mindre; den förlorar headarnas egna keys och values — de kan bara skilja sig i vad de frågar. Prova n_kv_heads i A/B: K/V-headarna medelvärdesbildas (tränas inte om).</translation>
    </message>
    <message>
        <source>Every head has its own K/V head here (n_kv_heads = n_heads = {H}, multi-head). </source>
        <translation>Varje head har sin egen K/V-head här (n_kv_heads = n_heads = {H}, multi-head). </translation>
    </message>
    <message>
        <source>dense/W</source>
        <translation>tät/W</translation>
    </message>
    <message>
        <source>model</source>
        <translation>modell</translation>
    </message>
    <message>
        <source>memory traffic</source>
        <translation>minnestrafik</translation>
    </message>
    <message>
        <source>layers</source>
        <translation>lager</translation>
    </message>
    <message>
        <source>positions</source>
        <translation>positioner</translation>
    </message>
    <message>
        <source>reach of i = {i}</source>
        <translation>räckvidd för i = {i}</translation>
    </message>
    <message>
        <source>layer {L} dense</source>
        <translation>lager {L} tätt</translation>
    </message>
    <message>
        <source>layer {L}, W = {W} off</source>
        <translation>lager {L}, W = {W} av</translation>
    </message>
    <message>
        <source>window W = {W}</source>
        <translation>fönster W = {W}</translation>
    </message>
    <message>
        <source>reach, W = {W}</source>
        <translation>räckvidd, W = {W}</translation>
    </message>
    <message>
        <source>weight on 0 “{w}”</source>
        <translation>vikt på 0 ”{w}”</translation>
    </message>
    <message>
        <source>without it: on “{w}”</source>
        <translation>utan den: på ”{w}”</translation>
    </message>
    <message>
        <source>pattern without “{w}”</source>
        <translation>mönster utan ”{w}”</translation>
    </message>
    <message>
        <source> Without “{w}” the new first token takes &lt;b&gt;{share:.0%}&lt;/b&gt; on average (uniform: {u:.0%}).</source>
        <translation> Utan ”{w}” tar den nya första token &lt;b&gt;{share:.0%}&lt;/b&gt; i genomsnitt (jämnt fördelat: {u:.0%}).</translation>
    </message>
    <message>
        <source>the run without the first token</source>
        <translation>körningen utan den första token</translation>
    </message>
    <message>
        <source> (one token only: nothing to remove)</source>
        <translation> (bara en token: inget att ta bort)</translation>
    </message>
    <message>
        <source> Computing the run without the first token…</source>
        <translation> Beräknar körningen utan den första token…</translation>
    </message>
    <message>
        <source>Reach: after {L} layers query i = {i} can have read {every} of its {n} positions with W = {W} in every layer, {alternating} with dense / W alternating, {model} with this model&apos;s layers. A window of W = {W} keys lets query i = {i} see {seen} of its {n} positions; through the residual stream each windowed layer adds W − 1 = {more} more: after {L} such layers it reaches back {span:,} positions. Mistral-7B: W = 4,096 in 32 layers reaches back {mistral:,}. GPT-3 alternates dense and banded layers: one dense layer reaches the start. &lt;b&gt;Sinks&lt;/b&gt;: on average the queries put &lt;b&gt;{share:.0%}&lt;/b&gt; of their weight on position 0 (a uniform row would give {u:.0%}); the largest, layer {tl} head {th}: {top:.0%}.</source>
        <translation>Räckvidd: efter {L} lager kan query i = {i} ha läst {every} av sina {n} positioner med W = {W} i varje lager, {alternating} med tätt / W omväxlande, {model} med den här modellens lager. Ett fönster på W = {W} keys låter query i = {i} se {seen} av sina {n} positioner; genom residualströmmen lägger varje lager med fönster till W − 1 = {more} till: efter {L} sådana lager når den {span:,} positioner bakåt. Mistral-7B: W = 4 096 i 32 lager når {mistral:,} bakåt. GPT-3 växlar mellan täta och bandade lager: ett enda tätt lager når början. &lt;b&gt;Sänkor&lt;/b&gt;: i genomsnitt lägger queries &lt;b&gt;{share:.0%}&lt;/b&gt; av sin vikt på position 0 (en jämnt fördelad rad skulle ge {u:.0%}); störst är lager {tl} head {th}: {top:.0%}.</translation>
    </message>
    <message>
        <source>scores of queries {a}…{b}; step {n} of {N}: keys {ka}…{kb}</source>
        <translation>poäng för queries {a}…{b}; steg {n} av {N}: keys {ka}…{kb}</translation>
    </message>
    <message>
        <source>scores of queries {a}…{b}: before the first tile</source>
        <translation>poäng för queries {a}…{b}: före den första brickan</translation>
    </message>
    <message>
        <source>query {i}, tile by tile</source>
        <translation>query {i}, bricka för bricka</translation>
    </message>
    <message>
        <source>step (tile)</source>
        <translation>steg (bricka)</translation>
    </message>
    <message>
        <source>running e^(S − m)/ℓ, step {n}</source>
        <translation>löpande e^(S − m)/ℓ, steg {n}</translation>
    </message>
    <message>
        <source>pattern (materialised)</source>
        <translation>mönster (fullständigt)</translation>
    </message>
    <message>
        <source>difference: max {d:.1e}</source>
        <translation>skillnad: max {d:.1e}</translation>
    </message>
    <message>
        <source>After step {n} of {N} the running rows differ from the pattern by up to {d:.1e}</source>
        <translation>Efter steg {n} av {N} skiljer sig de löpande raderna från mönstret med upp till {d:.1e}</translation>
    </message>
    <message>
        <source> (ℓ has not seen every key yet). </source>
        <translation> (ℓ har inte sett alla keys än). </translation>
    </message>
    <message>
        <source>Block of B_r = {Br} queries ({a}…{b}), tiles of B_c = {Bc} keys: {N} steps</source>
        <translation>Block med B_r = {Br} queries ({a}…{b}), brickor med B_c = {Bc} keys: {N} steg</translation>
    </message>
    <message>
        <source>, {k} skipped (every key masked)</source>
        <translation>, {k} överhoppade (alla keys maskade)</translation>
    </message>
    <message>
        <source>. At any time only a [{Br}, {Bc}] tile of scores exists; the materialised softmax writes [{Br}, {T}] scores and as many probabilities to memory and reads them back. After the last tile the running rows equal the pattern (max difference {final:.1e}) and o/ℓ equals z (max difference {z:.1e}). Memory traffic: tiled &lt;b&gt;{tiled}&lt;/b&gt; against materialised &lt;b&gt;{full}&lt;/b&gt; (K and V are read either way; the saving grows with T). The T×T = {TT:,} scores per head and layer are never stored: at n_ctx = {n_ctx:,} they would be {big} per head.</source>
        <translation>. Vid varje tidpunkt finns bara en [{Br}, {Bc}]-bricka med poäng; den fullständiga softmaxen skriver [{Br}, {T}] poäng och lika många sannolikheter till minnet och läser tillbaka dem. Efter den sista brickan är de löpande raderna lika med mönstret (största skillnad {final:.1e}) och o/ℓ lika med z (största skillnad {z:.1e}). Minnestrafik: blockvis &lt;b&gt;{tiled}&lt;/b&gt; mot fullständig &lt;b&gt;{full}&lt;/b&gt; (K och V läses i båda fallen; vinsten växer med T). De T×T = {TT:,} poängen per head och lager lagras aldrig: vid n_ctx = {n_ctx:,} skulle de vara {big} per head.</translation>
    </message>
    <message>
        <source>The next token after query {i}: A “{wa}” ({pa:.2f}), B “{wb}” ({pb:.2f}).</source>
        <translation>Nästa token efter query {i}: A ”{wa}” ({pa:.2f}), B ”{wb}” ({pb:.2f}).</translation>
    </message>
    <message>
        <source>B cannot be computed: {why}</source>
        <translation>B kan inte beräknas: {why}</translation>
    </message>
    <message>
        <source>B: computing…</source>
        <translation>B: beräknas…</translation>
    </message>
    <message>
        <source>Computing B…</source>
        <translation>Beräknar B…</translation>
    </message>
    <message>
        <source>side B</source>
        <translation>sida B</translation>
    </message>
    <message>
        <source>&lt;b&gt;B&lt;/b&gt;: {note}. Query i = {i}: in A its largest weight is on key {ta} “{wa}” ({pa:.2f}); in B on key {tb} “{wb}” ({pb:.2f}). Its row moves by {moved:.0%} of its weight (half the L1 difference). One colour scale for A and B in each row.</source>
        <translation>&lt;b&gt;B&lt;/b&gt;: {note}. Query i = {i}: i A ligger dess största vikt på key {ta} ”{wa}” ({pa:.2f}); i B på key {tb} ”{wb}” ({pb:.2f}). Dess rad flyttar {moved:.0%} av sin vikt (halva L1-skillnaden). En färgskala för A och B i varje rad.</translation>
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
        <translation>Förutsäg, visa sedan ▶</translation>
    </message>
    <message>
        <source>Both positions move by Δ: does the score change? The key moves away?</source>
        <translation>Båda positionerna flyttas Δ: ändras poängen? Och om key flyttas bort?</translation>
    </message>
    <message>
        <source>Hide the test</source>
        <translation>Dölj testet</translation>
    </message>
    <message>
        <source>the score now</source>
        <translation>poängen nu</translation>
    </message>
    <message>
        <source>Predict: i and j both move by Δ. Does the score change?</source>
        <translation>Förutsäg: i och j flyttas båda Δ. Ändras poängen?</translation>
    </message>
    <message>
        <source>{r} of {dh}</source>
        <translation>{r} av {dh}</translation>
    </message>
    <message>
        <source>what if n_kv_heads =</source>
        <translation>tänk om n_kv_heads =</translation>
    </message>
    <message>
        <source>Compare in A/B</source>
        <translation>Jämför i A/B</translation>
    </message>
    <message>
        <source>this model with its K/V heads pooled to this number, beside itself</source>
        <translation>den här modellen med sina K/V-headar sammanslagna till detta antal, bredvid sig själv</translation>
    </message>
    <message>
        <source>multi-head</source>
        <translation>multi-head</translation>
    </message>
    <message>
        <source>window W =</source>
        <translation>fönster W =</translation>
    </message>
    <message>
        <source>keys (the model&apos;s: </source>
        <translation>keys (modellens: </translation>
    </message>
    <message>
        <source>none, every layer dense</source>
        <translation>inga, alla lager täta</translation>
    </message>
    <message>
        <source>tile B_r = B_c =</source>
        <translation>bricka B_r = B_c =</translation>
    </message>
    <message>
        <source>one tile back</source>
        <translation>en bricka tillbaka</translation>
    </message>
    <message>
        <source>next tile ▶</source>
        <translation>nästa bricka ▶</translation>
    </message>
    <message>
        <source>the next tile arrives: predict m and ℓ first</source>
        <translation>nästa bricka kommer: förutsäg m och ℓ först</translation>
    </message>
    <message>
        <source>from the start</source>
        <translation>från början</translation>
    </message>
    <message>
        <source>all tiles</source>
        <translation>alla brickor</translation>
    </message>
    <message>
        <source>  step {n} of {N}</source>
        <translation>  steg {n} av {N}</translation>
    </message>
    <message>
        <source>the causal mask off (on)</source>
        <translation>den kausala masken av (på)</translation>
    </message>
    <message>
        <source>the 1/√d_head scaling off (on)</source>
        <translation>skalningen 1/√d_head av (på)</translation>
    </message>
    <message>
        <source>d_head × 4 (random weights)</source>
        <translation>d_head × 4 (slumpade vikter)</translation>
    </message>
    <message>
        <source>another RoPE θ</source>
        <translation>ett annat RoPE-θ</translation>
    </message>
    <message>
        <source>another n_kv_heads (pooled K/V)</source>
        <translation>ett annat n_kv_heads (sammanslagna K/V)</translation>
    </message>
    <message>
        <source>the query&apos;s token moved</source>
        <translation>queryns token flyttad</translation>
    </message>
    <message>
        <source>other weights</source>
        <translation>andra vikter</translation>
    </message>
    <message>
        <source>another head</source>
        <translation>en annan head</translation>
    </message>
    <message>
        <source>a head knocked out</source>
        <translation>ett huvud utslaget</translation>
    </message>
    <message>
        <source>the model loaded wrong</source>
        <translation>modellen felaktigt inläst</translation>
    </message>
    <message>
        <source>B = A with</source>
        <translation>B = A med</translation>
    </message>
    <message>
        <source>Make B the lab&apos;s inputs</source>
        <translation>Gör B till labbets indata</translation>
    </message>
    <message>
        <source>apply this change to the lab (an undoable edit)</source>
        <translation>gör den här ändringen i labbet (en redigering som kan ångras)</translation>
    </message>
    <message>
        <source>{n} K/V heads</source>
        <translation>{n} K/V-headar</translation>
    </message>
    <message>
        <source>{src} → position {d}</source>
        <translation>{src} → position {d}</translation>
    </message>
    <message>
        <source>random, seed {s}</source>
        <translation>slumpade, frö {s}</translation>
    </message>
    <message>
        <source>the trained toy weights</source>
        <translation>de tränade leksaksvikterna</translation>
    </message>
    <message>
        <source>head {h}</source>
        <translation>head {h}</translation>
    </message>
    <message>
        <source>{field} is missing</source>
        <translation>{field} saknas</translation>
    </message>
    <message>
        <source>{field} = {value}: must be a whole number</source>
        <translation>{field} = {value}: måste vara ett heltal</translation>
    </message>
    <message>
        <source>text</source>
        <translation>text</translation>
    </message>
    <message>
        <source>true or false</source>
        <translation>true eller false</translation>
    </message>
    <message>
        <source>an object</source>
        <translation>ett objekt</translation>
    </message>
    <message>
        <source>a list</source>
        <translation>en lista</translation>
    </message>
    <message>
        <source>{field} = {value}: must be {kind}</source>
        <translation>{field} = {value}: måste vara {kind}</translation>
    </message>
    <message>
        <source>inputs.weights must be an object such as {example}</source>
        <translation>inputs.weights måste vara ett objekt, till exempel {example}</translation>
    </message>
    <message>
        <source>{field} = {value}: a weight seed is a whole number from 0 to {most}</source>
        <translation>{field} = {value}: ett viktfrö är ett heltal från 0 till {most}</translation>
    </message>
    <message>
        <source>The trained toy weights are not installed: the session is shown with random weights (seed {seed}) instead.</source>
        <translation>De tränade leksaksvikterna är inte installerade: sessionen visas i stället med slumpade vikter (frö {seed}).</translation>
    </message>
    <message>
        <source>The shipped trained weights have</source>
        <translation>De medföljande tränade vikterna har</translation>
    </message>
    <message>
        <source>The session used weights made in that session ({name}), which were not saved to a file: it is shown with random weights (seed {seed}) instead.</source>
        <translation>Sessionen använde vikter som gjordes i den sessionen ({name}) och aldrig sparades till en fil: den visas i stället med slumpade vikter (frö {seed}).</translation>
    </message>
    <message>
        <source>The session&apos;s weights are of a kind this version does not know ({kind}): it is shown with random weights (seed {seed}) instead.</source>
        <translation>Sessionens vikter är av ett slag som den här versionen inte känner till ({kind}): den visas i stället med slumpade vikter (frö {seed}).</translation>
    </message>
    <message>
        <source>The weights file {path} was not found: the session is shown with random weights (seed {seed}) instead. Load the weights to see the saved numbers.</source>
        <translation>Viktfilen {path} hittades inte: sessionen visas i stället med slumpade vikter (frö {seed}). Läs in vikterna för att se de sparade talen.</translation>
    </message>
    <message>
        <source>The weights folder {path} was not found: the session is shown with random weights (seed {seed}) instead. Load the weights to see the saved numbers.</source>
        <translation>Viktmappen {path} hittades inte: sessionen visas i stället med slumpade vikter (frö {seed}). Läs in vikterna för att se de sparade talen.</translation>
    </message>
    <message>
        <source>The weights file {path} is {what}, not a weights file: the session is shown with random weights (seed {seed}) instead.</source>
        <translation>Viktfilen {path} är {what}, inte en viktfil: sessionen visas i stället med slumpade vikter (frö {seed}).</translation>
    </message>
    <message>
        <source>The weights folder {path} is {what}, not a weights folder: the session is shown with random weights (seed {seed}) instead.</source>
        <translation>Viktmappen {path} är {what}, inte en viktmapp: sessionen visas i stället med slumpade vikter (frö {seed}).</translation>
    </message>
    <message>
        <source>The weights file {path} has</source>
        <translation>Viktfilen {path} har</translation>
    </message>
    <message>
        <source>The weights folder {path} has</source>
        <translation>Viktmappen {path} har</translation>
    </message>
    <message>
        <source>The model {path} whose vocabulary names these tokens was not found: the tokens are shown as numbers.</source>
        <translation>Modellen {path} vars ordförråd ger orden till dessa token hittades inte: token visas som tal.</translation>
    </message>
    <message>
        <source>{subject} changed since the session was saved (the sha256 differs): the numbers may not be the ones saved.</source>
        <translation>{subject} ändrats sedan sessionen sparades (sha256 skiljer sig): talen kanske inte är de sparade.</translation>
    </message>
    <message>
        <source>heads</source>
        <translation>headar</translation>
    </message>
    <message>
        <source>query positions</source>
        <translation>query-positioner</translation>
    </message>
    <message>
        <source>the file is empty</source>
        <translation>filen är tom</translation>
    </message>
    <message>
        <source>the file is damaged or truncated (not valid JSON: {why} at line {line}, column {column})</source>
        <translation>filen är skadad eller avkortad (inte giltig JSON: {why} på rad {line}, kolumn {column})</translation>
    </message>
    <message>
        <source>the file is not a session QKV Lab can read ({why})</source>
        <translation>filen är inte en session som QKV Lab kan läsa ({why})</translation>
    </message>
    <message>
        <source>this is not a QKV Lab session (no &quot;format&quot;: &quot;qkv-lab-session&quot;)</source>
        <translation>det här är ingen QKV Lab-session (inget &quot;format&quot;: &quot;qkv-lab-session&quot;)</translation>
    </message>
    <message>
        <source>{field} = {value}: not a session schema version</source>
        <translation>{field} = {value}: inte en version av sessionsformatet</translation>
    </message>
    <message>
        <source>it was saved by a newer QKV Lab ({saved_by}, session schema {schema}); this version reads schema {ours}. Update QKV Lab to open it.</source>
        <translation>den sparades av en nyare QKV Lab ({saved_by}, sessionsschema {schema}); den här versionen läser schema {ours}. Uppdatera QKV Lab för att öppna den.</translation>
    </message>
    <message>
        <source>unknown version</source>
        <translation>okänd version</translation>
    </message>
    <message>
        <source>inputs.tokens is empty: a session needs at least one token</source>
        <translation>inputs.tokens är tom: en session behöver minst en token</translation>
    </message>
    <message>
        <source>{field} = {value}: choose one of {choices}</source>
        <translation>{field} = {value}: välj något av {choices}</translation>
    </message>
    <message>
        <source>{field} = {value}: this model has {what} 0..{last}</source>
        <translation>{field} = {value}: den här modellen har {what} 0..{last}</translation>
    </message>
    <message numerus="yes">
        <source>{field} = {value}: there are %n token(s)</source>
        <translation>
            <numerusform>{field} = {value}: det finns %n token</numerusform>
            <numerusform>{field} = {value}: det finns %n tokens</numerusform>
        </translation>
    </message>
    <message>
        <source>{name}: file not found</source>
        <translation>{name}: filen hittades inte</translation>
    </message>
    <message>
        <source>{name}: permission denied</source>
        <translation>{name}: åtkomst nekad</translation>
    </message>
    <message>
        <source>{name}: is a folder, not a session file</source>
        <translation>{name}: är en mapp, inte en sessionsfil</translation>
    </message>
    <message>
        <source>{name}: {reason}, too large to be a session</source>
        <translation>{name}: {reason}, för stor för att vara en session</translation>
    </message>
    <message>
        <source>{name}: {reason}, not a session file</source>
        <translation>{name}: {reason}, inte en sessionsfil</translation>
    </message>
    <message>
        <source>{name}: cannot read ({reason})</source>
        <translation>{name}: kan inte läsas ({reason})</translation>
    </message>
    <message>
        <source>{name}: this is not a QKV Lab session (not UTF-8 text)</source>
        <translation>{name}: det här är ingen QKV Lab-session (inte UTF-8-text)</translation>
    </message>
    <message>
        <source>Open session {name}</source>
        <translation>Öppna sessionen {name}</translation>
    </message>
    <message>
        <source>the inputs were refused</source>
        <translation>indata avvisades</translation>
    </message>
    <message>
        <source>Could not open {name}: {reason}. Nothing changed.</source>
        <translation>Kunde inte öppna {name}: {reason}. Inget ändrades.</translation>
    </message>
    <message>
        <source>Checking the sha256 of the weights ({size}) in the background…</source>
        <translation>Kontrollerar viktenas sha256 ({size}) i bakgrunden…</translation>
    </message>
    <message>
        <source>patching must be an object such as {example}</source>
        <translation>patching måste vara ett objekt som {example}</translation>
    </message>
    <message>
        <source>inputs.ablated must be a list of [layer, head] pairs</source>
        <translation>inputs.ablated måste vara en lista av par [lager, huvud]</translation>
    </message>
    <message>
        <source>inputs.ablated: there is no head {head} in layer {layer}</source>
        <translation>inputs.ablated: det finns inget huvud {head} i lager {layer}</translation>
    </message>
    <message>
        <source>these weights existed only in memory (made by training here, not saved to a file); use Model › Save weights to keep trained weights</source>
        <translation>de här vikterna fanns bara i minnet (gjorda genom träning här, inte sparade till en fil); använd Modell › Spara vikter för att behålla tränade vikter</translation>
    </message>
    <message>
        <source>they are for {theirs}, not for {ours}</source>
        <translation>de är gjorda för {theirs}, inte för {ours}</translation>
    </message>
    <message>
        <source>this model has none of the parts that are classically loaded wrong (RoPE, QK-norm, windows, parallel attention and MLP)</source>
        <translation>den här modellen har inga av de delar som klassiskt läses in fel (RoPE, QK-norm, fönster, attention och MLP parallellt)</translation>
    </message>
    <message>
        <source>causal mask off</source>
        <translation>kausal mask av</translation>
    </message>
    <message>
        <source>causal mask on</source>
        <translation>kausal mask på</translation>
    </message>
    <message>
        <source>1/√d_head scaling on</source>
        <translation>skalning 1/√d_head på</translation>
    </message>
    <message>
        <source>1/√d_head scaling off</source>
        <translation>skalning 1/√d_head av</translation>
    </message>
    <message>
        <source>d_head {old} → {new}: new shapes, random weights (seed {seed})</source>
        <translation>d_head {old} → {new}: nya former, slumpade vikter (frö {seed})</translation>
    </message>
    <message>
        <source>this model has learned positions, no RoPE to change</source>
        <translation>den här modellen har inlärda positioner, ingen RoPE att ändra</translation>
    </message>
    <message>
        <source>RoPE θ {old} → {new}</source>
        <translation>RoPE-θ {old} → {new}</translation>
    </message>
    <message>
        <source>n_kv_heads {old} → {new} (the K/V heads copied, not retrained)</source>
        <translation>n_kv_heads {old} → {new} (K/V-headarna kopierade, inte omtränade)</translation>
    </message>
    <message>
        <source>n_kv_heads {old} → {new} (the K/V heads mean-pooled, not retrained)</source>
        <translation>n_kv_heads {old} → {new} (K/V-headarna medelvärdesbildade, inte omtränade)</translation>
    </message>
    <message>
        <source>positions must be 0..{last}</source>
        <translation>positionerna måste vara 0..{last}</translation>
    </message>
    <message>
        <source>the token at {src} moved to {dst}</source>
        <translation>token på {src} flyttad till {dst}</translation>
    </message>
    <message>
        <source>the trained weights are not available here</source>
        <translation>de tränade vikterna finns inte här</translation>
    </message>
    <message>
        <source>this model has heads 0..{last}</source>
        <translation>den här modellen har headarna 0..{last}</translation>
    </message>
    <message>
        <source>head {h} of the same pass</source>
        <translation>head {h} i samma körning</translation>
    </message>
    <message>
        <source>this model has layers 0..{layers} and heads 0..{heads}</source>
        <translation>denna modell har lager 0..{layers} och huvuden 0..{heads}</translation>
    </message>
    <message>
        <source>head {layer}.{h} knocked out (z = 0)</source>
        <translation>huvud {layer}.{h} utslaget (z = 0)</translation>
    </message>
    <message>
        <source>this model cannot be loaded wrong that way; its mistakes: {known}</source>
        <translation>den här modellen kan inte läsas in fel på det sättet; dess misstag: {known}</translation>
    </message>
    <message>
        <source>loaded wrong: {mistake}</source>
        <translation>felaktigt inläst: {mistake}</translation>
    </message>
    <message>
        <source>This model has learned positions: no RoPE, nothing is rotated. W_pos [n_ctx, d_model] = [{n_ctx}, {d_model}] gives each position a vector that is added to the token&apos;s embedding before the first block (pos_embed = W_pos[:T]); q and k then carry content and absolute position mixed in one vector, and no position past n_ctx = {n_ctx} has a row.</source>
        <translation>Den här modellen har inlärda positioner: ingen RoPE, inget roteras. W_pos [n_ctx, d_model] = [{n_ctx}, {d_model}] ger varje position en vektor som läggs till tokenens inbäddning före det första blocket (pos_embed = W_pos[:T]); q och k bär sedan innehåll och absolut position blandade i en vektor, och ingen position efter n_ctx = {n_ctx} har någon rad.</translation>
    </message>
    <message>
        <source>Shapes now</source>
        <translation>Former nu</translation>
    </message>
    <message>
        <source>Try</source>
        <translation>Prova</translation>
    </message>
    <message>
        <source>any key or a click closes this sheet</source>
        <translation>valfri tangent eller ett klick stänger fusklappen</translation>
    </message>
    <message>
        <source>no NVIDIA GPU here: the cpu backend computes everything</source>
        <translation>ingen NVIDIA-GPU här: cpu-backend räknar allt</translation>
    </message>
    <message>
        <source>the NVIDIA driver supports CUDA {version}, and CUDA {needs} needs driver {driver} or newer: update the NVIDIA driver (installing packages does not help)</source>
        <translation>NVIDIA-drivrutinen stöder CUDA {version}, och CUDA {needs} kräver drivrutin {driver} eller nyare: uppdatera NVIDIA-drivrutinen (att installera paket hjälper inte)</translation>
    </message>
    <message>
        <source>numba-cuda is not installed: {command}</source>
        <translation>numba-cuda är inte installerat: {command}</translation>
    </message>
    <message>
        <source>no NVIDIA GPU driver found</source>
        <translation>ingen NVIDIA-GPU-drivrutin hittades</translation>
    </message>
    <message>
        <source>no usable NVIDIA driver: {why}</source>
        <translation>ingen användbar NVIDIA-drivrutin: {why}</translation>
    </message>
    <message>
        <source>NVIDIA&apos;s CUDA compiler library (NVVM) is missing: {command}</source>
        <translation>NVIDIAs CUDA-kompilatorbibliotek (NVVM) saknas: {command}</translation>
    </message>
    <message>
        <source>no CUDA GPU found</source>
        <translation>ingen CUDA-GPU hittades</translation>
    </message>
    <message>
        <source>Preparing the fast kernels (first start only); the views are drawn with numpy meanwhile.</source>
        <translation>Förbereder de snabba kärnorna (bara första starten); vyerna ritas med numpy så länge.</translation>
    </message>
    <message>
        <source>The fast kernels could not be prepared ({why}); numpy computes small passes.</source>
        <translation>De snabba kärnorna kunde inte förberedas ({why}); numpy räknar små pass.</translation>
    </message>
    <message>
        <source>reading the weights</source>
        <translation>läser vikterna</translation>
    </message>
    <message>
        <source>reading the GGUF header</source>
        <translation>läser GGUF-huvudet</translation>
    </message>
    <message>
        <source>dequantizing the weights</source>
        <translation>avkvantiserar vikterna</translation>
    </message>
    <message>
        <source>measuring d_k = {d_k}…</source>
        <translation>mäter d_k = {d_k}…</translation>
    </message>
    <message>
        <source>RoPE pairs interleaved (2i, 2i+1), not half-split</source>
        <translation>RoPE-par (2i, 2i+1), inte halvdelade</translation>
    </message>
    <message>
        <source>RoPE pairs half-split on interleaved rows</source>
        <translation>RoPE-par halvdelade på sammanflätade rader</translation>
    </message>
    <message>
        <source>QK-norm left out</source>
        <translation>QK-norm utelämnad</translation>
    </message>
    <message>
        <source>windows ignored: every layer global</source>
        <translation>fönster ignorerade: varje lager globalt</translation>
    </message>
    <message>
        <source>a window in every layer: no global layer</source>
        <translation>ett fönster i varje lager: inget globalt lager</translation>
    </message>
    <message>
        <source>one RoPE base for every layer</source>
        <translation>en RoPE-bas för alla lager</translation>
    </message>
    <message>
        <source>embedding scale √d_model left out</source>
        <translation>inbäddningsskalan √d_model utelämnad</translation>
    </message>
    <message>
        <source>soft-capping left out (scores and logits uncapped)</source>
        <translation>mjuk gräns utelämnad (poäng och logits obegränsade)</translation>
    </message>
    <message>
        <source>attention, MLP in sequence, not in parallel</source>
        <translation>attention, MLP i följd, inte parallellt</translation>
    </message>
    <message>
        <source>tanh GELU instead of the exact erf GELU</source>
        <translation>tanh-GELU i stället för den exakta erf-GELU</translation>
    </message>
    <message>
        <source>Activation patching: {why}</source>
        <translation>Aktiveringspatchning: {why}</translation>
    </message>
    <message>
        <source>Activation patching needs two different answer tokens.</source>
        <translation>Aktiveringspatchning behöver två olika svarstoken.</translation>
    </message>
    <message>
        <source>Activation patching</source>
        <translation>Aktiveringspatchning</translation>
    </message>
</context>
<context>
    <name>Action</name>
    <message>
        <source>&amp;New session</source>
        <translation>&amp;Ny session</translation>
    </message>
    <message>
        <source>&amp;Open session…</source>
        <translation>Ö&amp;ppna session…</translation>
    </message>
    <message>
        <source>Open &amp;recent</source>
        <translation>Öppna &amp;senaste</translation>
    </message>
    <message>
        <source>&amp;Save session</source>
        <translation>S&amp;para session</translation>
    </message>
    <message>
        <source>Save session &amp;as…</source>
        <translation>Spara session &amp;som…</translation>
    </message>
    <message>
        <source>Start with the last session</source>
        <translation>Börja med den senaste sessionen</translation>
    </message>
    <message>
        <source>&amp;Export figure or data…</source>
        <translation>&amp;Exportera figur eller data…</translation>
    </message>
    <message>
        <source>Export all intermediates (NPZ)…</source>
        <translation>Exportera alla mellanresultat (NPZ)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Avsluta</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>Ångra</translation>
    </message>
    <message>
        <source>Redo</source>
        <translation>Gör om</translation>
    </message>
    <message>
        <source>Type a sentence…</source>
        <translation>Skriv en mening…</translation>
    </message>
    <message>
        <source>Block &amp;map: the stations as one picture</source>
        <translation>Block&amp;karta: stationerna som en bild</translation>
    </message>
    <message>
        <source>Next station</source>
        <translation>Nästa station</translation>
    </message>
    <message>
        <source>Previous station</source>
        <translation>Föregående station</translation>
    </message>
    <message>
        <source>Next query position</source>
        <translation>Nästa query-position</translation>
    </message>
    <message>
        <source>Previous query position</source>
        <translation>Föregående query-position</translation>
    </message>
    <message>
        <source>Next head</source>
        <translation>Nästa head</translation>
    </message>
    <message>
        <source>Previous head</source>
        <translation>Föregående head</translation>
    </message>
    <message>
        <source>Next layer</source>
        <translation>Nästa lager</translation>
    </message>
    <message>
        <source>Previous layer</source>
        <translation>Föregående lager</translation>
    </message>
    <message>
        <source>Cancel computation / stop playing</source>
        <translation>Avbryt beräkningen / stoppa uppspelningen</translation>
    </message>
    <message>
        <source>Play / pause the stations</source>
        <translation>Spela / pausa stationerna</translation>
    </message>
    <message>
        <source>Controls</source>
        <translation>Inställningar</translation>
    </message>
    <message>
        <source>Instruments</source>
        <translation>Instrument</translation>
    </message>
    <message>
        <source>&amp;Presentation mode</source>
        <translation>&amp;Presentationsläge</translation>
    </message>
    <message>
        <source>Shortcut cheat sheet</source>
        <translation>Fusklapp med kortkommandon</translation>
    </message>
    <message>
        <source>&amp;Dark theme</source>
        <translation>&amp;Mörkt tema</translation>
    </message>
    <message>
        <source>Colour map (0…1: pattern, variance)</source>
        <translation>Färgkarta (0…1: pattern, varians)</translation>
    </message>
    <message>
        <source>Colour map (signed values)</source>
        <translation>Färgkarta (tal med tecken)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>&amp;Språk</translation>
    </message>
    <message>
        <source>Use the &amp;trained toy weights</source>
        <translation>Använd de &amp;tränade leksaksvikterna</translation>
    </message>
    <message>
        <source>Use &amp;random weights</source>
        <translation>Använd &amp;slumpade vikter</translation>
    </message>
    <message>
        <source>Open &amp;weights file (.safetensors)…</source>
        <translation>Öppna &amp;viktfil (.safetensors)…</translation>
    </message>
    <message>
        <source>Open &amp;model folder or GGUF file…</source>
        <translation>Öppna &amp;modellmapp eller GGUF-fil…</translation>
    </message>
    <message>
        <source>&amp;Download…</source>
        <translation>&amp;Ladda ner…</translation>
    </message>
    <message>
        <source>&amp;Save weights…</source>
        <translation>Spara vi&amp;kter…</translation>
    </message>
    <message>
        <source>T&amp;rain the toy model…</source>
        <translation>T&amp;räna leksaksmodellen…</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>Kortkommandon</translation>
    </message>
    <message>
        <source>About QKV Lab</source>
        <translation>Om QKV Lab</translation>
    </message>
</context>
<context>
    <name>Menu</name>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Arkiv</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>&amp;Redigera</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Visa</translation>
    </message>
    <message>
        <source>&amp;Model</source>
        <translation>&amp;Modell</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Hjälp</translation>
    </message>
</context>
<context>
    <name>Page</name>
    <message>
        <source>Embeddings</source>
        <translation>Inbäddningar</translation>
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
        <translation>Poäng</translation>
    </message>
    <message>
        <source>Softmax row</source>
        <translation>Softmax-rad</translation>
    </message>
    <message>
        <source>Weighted V</source>
        <translation>Viktat V</translation>
    </message>
    <message>
        <source>Heads → W_O</source>
        <translation>Headar → W_O</translation>
    </message>
    <message>
        <source>MLP &amp; residual</source>
        <translation>MLP och residualström</translation>
    </message>
    <message>
        <source>Head lens</source>
        <translation>Headlins</translation>
    </message>
    <message>
        <source>√d_k lab</source>
        <translation>√d_k-labb</translation>
    </message>
    <message>
        <source>The mask</source>
        <translation>Masken</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV-cache</translation>
    </message>
    <message>
        <source>RoPE lab</source>
        <translation>RoPE-labb</translation>
    </message>
    <message>
        <source>Shared K/V heads</source>
        <translation>Delade K/V-headar</translation>
    </message>
    <message>
        <source>Windows and sinks</source>
        <translation>Fönster och sänkor</translation>
    </message>
    <message>
        <source>The tiled softmax</source>
        <translation>Blockvis softmax</translation>
    </message>
    <message>
        <source>A/B</source>
        <translation>A/B</translation>
    </message>
    <message>
        <source>Knock heads out</source>
        <translation>Slå ut huvuden</translation>
    </message>
    <message>
        <source>Logit lens</source>
        <translation>Logitlins</translation>
    </message>
    <message>
        <source>Why this key: the score taken apart</source>
        <translation>Varför denna nyckel: poängen isärplockad</translation>
    </message>
    <message>
        <source>Head finder</source>
        <translation>Huvudsökare</translation>
    </message>
    <message>
        <source>Activation patching</source>
        <translation>Aktiveringspatchning</translation>
    </message>
</context>
<context>
    <name>PageShort</name>
    <message>
        <source>Embed</source>
        <translation>Inbäddn.</translation>
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
        <translation>Poäng</translation>
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
        <translation>Headar·W_O</translation>
    </message>
    <message>
        <source>MLP</source>
        <translation>MLP</translation>
    </message>
    <message>
        <source>Head lens</source>
        <translation>Headlins</translation>
    </message>
    <message>
        <source>√d_k lab</source>
        <translation>√d_k-labb</translation>
    </message>
    <message>
        <source>Mask</source>
        <translation>Mask</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV-cache</translation>
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
        <translation>Fönster</translation>
    </message>
    <message>
        <source>Tiled</source>
        <translation>Blockvis</translation>
    </message>
    <message>
        <source>A/B</source>
        <translation>A/B</translation>
    </message>
    <message>
        <source>Knockout</source>
        <translation>Utslagning</translation>
    </message>
    <message>
        <source>Lens</source>
        <translation>Lins</translation>
    </message>
    <message>
        <source>Why this key</source>
        <translation>Varför nyckeln</translation>
    </message>
    <message>
        <source>Head finder</source>
        <translation>Huvudsökare</translation>
    </message>
    <message>
        <source>Patching</source>
        <translation>Patchning</translation>
    </message>
</context>
<context>
    <name>Sheet</name>
    <message>
        <source>undo / redo the last edit</source>
        <translation>ångra / gör om den senaste ändringen</translation>
    </message>
    <message>
        <source>go to a station</source>
        <translation>gå till en station</translation>
    </message>
    <message>
        <source>the block map: every station as one picture</source>
        <translation>blockkartan: alla stationer som en bild</translation>
    </message>
    <message>
        <source>previous / next station</source>
        <translation>föregående / nästa station</translation>
    </message>
    <message>
        <source>move the query position</source>
        <translation>flytta query-positionen</translation>
    </message>
    <message>
        <source>previous / next head</source>
        <translation>föregående / nästa head</translation>
    </message>
    <message>
        <source>previous / next layer</source>
        <translation>föregående / nästa lager</translation>
    </message>
    <message>
        <source>type a sentence</source>
        <translation>skriv en mening</translation>
    </message>
    <message>
        <source>play / pause: step through the stations</source>
        <translation>spela / pausa: stega genom stationerna</translation>
    </message>
    <message>
        <source>stop playing; cancel a long computation</source>
        <translation>stoppa uppspelningen; avbryt en lång beräkning</translation>
    </message>
    <message>
        <source>new session / open a session</source>
        <translation>ny session / öppna en session</translation>
    </message>
    <message>
        <source>save the session / save as</source>
        <translation>spara sessionen / spara som</translation>
    </message>
    <message>
        <source>export a figure or data / all intermediates (NPZ)</source>
        <translation>exportera en figur eller data / alla mellanresultat (NPZ)</translation>
    </message>
    <message>
        <source>dark theme on / off</source>
        <translation>mörkt tema på / av</translation>
    </message>
    <message>
        <source>presentation mode (its own keys: F1 there)</source>
        <translation>presentationsläge (egna tangenter: F1 där)</translation>
    </message>
    <message>
        <source>shortcut cheat sheet</source>
        <translation>fusklapp med kortkommandon</translation>
    </message>
    <message>
        <source>quit</source>
        <translation>avsluta</translation>
    </message>
    <message>
        <source>next / previous station (a clicker)</source>
        <translation>nästa / föregående station (en presentatör)</translation>
    </message>
    <message>
        <source>go to station n</source>
        <translation>gå till station n</translation>
    </message>
    <message>
        <source>next / previous token (the query row)</source>
        <translation>nästa / föregående token (query-raden)</translation>
    </message>
    <message>
        <source>first / last token</source>
        <translation>första / sista token</translation>
    </message>
    <message>
        <source>next / previous head</source>
        <translation>nästa / föregående head</translation>
    </message>
    <message>
        <source>next / previous layer</source>
        <translation>nästa / föregående lager</translation>
    </message>
    <message>
        <source>the block map on / off</source>
        <translation>blockkartan på / av</translation>
    </message>
    <message>
        <source>numbers in the cells on / off</source>
        <translation>tal i cellerna på / av</translation>
    </message>
    <message>
        <source>lock the colour scales on / off</source>
        <translation>lås färgskalorna på / av</translation>
    </message>
    <message>
        <source>dark / light</source>
        <translation>mörkt / ljust</translation>
    </message>
    <message>
        <source>larger / smaller text</source>
        <translation>större / mindre text</translation>
    </message>
    <message>
        <source>presentation mode on / off</source>
        <translation>presentationsläge på / av</translation>
    </message>
    <message>
        <source>this cheat sheet</source>
        <translation>den här fusklappen</translation>
    </message>
    <message>
        <source>leave (a first Esc stops Play or a computation)</source>
        <translation>avsluta (ett första Esc stoppar uppspelning eller en beräkning)</translation>
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
        <translation> eller </translation>
    </message>
</context>
</TS>
