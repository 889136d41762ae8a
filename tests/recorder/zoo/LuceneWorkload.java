// Drives Lucene 4.10 (liblucene4.10-java): indexes a generated corpus in memory, then searches it
// with parsed queries. Lucene is a real program no one here wrote; this driver is only its
// workload.
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.IntField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.RAMDirectory;
import org.apache.lucene.util.Version;

public class LuceneWorkload {
    static final String[] WORDS = {"heap", "city", "memory", "object", "garbage", "collector", "tree", "root",
            "leak", "young", "old", "space", "class", "field", "array", "thread", "pause", "trace"};

    public static void main(String[] args) throws Exception {
        int docs = Integer.parseInt(args[0]);
        RAMDirectory dir = new RAMDirectory();
        StandardAnalyzer analyzer = new StandardAnalyzer();
        try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig(Version.LUCENE_4_10_4, analyzer))) {
            for (int i = 0; i < docs; i++) {
                Document d = new Document();
                d.add(new StringField("id", "doc" + i, Field.Store.YES));
                d.add(new IntField("n", i, Field.Store.YES));
                StringBuilder text = new StringBuilder();
                for (int k = 0; k < 40; k++) text.append(WORDS[(i * 7 + k * k) % WORDS.length]).append(' ');
                d.add(new TextField("body", text.toString(), Field.Store.NO));
                w.addDocument(d);
                if (i == docs / 2) Zoo.checkpoint("half");
            }
        }
        Zoo.checkpoint("indexed");
        long hits = 0;
        try (DirectoryReader r = DirectoryReader.open(dir)) {
            IndexSearcher s = new IndexSearcher(r);
            QueryParser parser = new QueryParser("body", analyzer);
            for (int q = 0; q < 200; q++) {
                TopDocs top = s.search(parser.parse(WORDS[q % WORDS.length] + " AND " + WORDS[(q * 5 + 3) % WORDS.length]), 20);
                hits += top.totalHits;
            }
            Zoo.checkpoint("searched");
        }
        System.out.println("indexed " + docs + " documents, " + hits + " hits");
    }
}
